#include "python/bindings/Collectives.h"

#include "launch/Launcher.h"
#include "python/bindings/Dispatcher.h"
#include "runtime/NCCL.h"

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace spirjit::python {

namespace {

using runtime::NcclCommunicator;
using runtime::NcclOp;
using runtime::NcclType;

/// NCCL's type for an array's elements and how many of them it holds
/// (complex numbers travel as pairs of their real type, booleans as
/// bytes).
std::pair<NcclType, size_t> elementsOf(const DeviceArray &array) {
  const py::dtype &dtype = array.dtype();
  size_t count = static_cast<size_t>(array.size());
  int size = static_cast<int>(dtype.itemsize());
  switch (dtype.kind()) {
  case 'b':
    return {NcclType::Uint8, count};
  case 'i':
  case 'u': {
    bool isUnsigned = dtype.kind() == 'u';
    if (size == 1)
      return {isUnsigned ? NcclType::Uint8 : NcclType::Int8, count};
    if (size == 4)
      return {isUnsigned ? NcclType::Uint32 : NcclType::Int32, count};
    if (size == 8)
      return {isUnsigned ? NcclType::Uint64 : NcclType::Int64, count};
    break;
  }
  case 'f':
    if (size == 2)
      return {NcclType::Float16, count};
    if (size == 4)
      return {NcclType::Float32, count};
    if (size == 8)
      return {NcclType::Float64, count};
    break;
  case 'c':
    return {size == 8 ? NcclType::Float32 : NcclType::Float64, 2 * count};
  }
  // spirjit.mpi refuses these (int16) before they get here.
  throw std::logic_error("internal error (a bug in spirjit): NCCL has no "
                         "type for dtype " +
                         py::str(dtype).cast<std::string>());
}

char *addressOf(const std::shared_ptr<runtime::Buffer> &buffer,
                const DeviceArray &array) {
  return static_cast<char *>(buffer->svm()) + array.offset();
}

NcclOp opNamed(const std::string &name) {
  if (name == "sum")
    return NcclOp::Sum;
  if (name == "prod")
    return NcclOp::Prod;
  if (name == "max")
    return NcclOp::Max;
  if (name == "min")
    return NcclOp::Min;
  throw std::logic_error("internal error (a bug in spirjit): no NCCL "
                         "reduction named " + name);
}

/// A communicator and the memory its transfers beside the device's stream
/// use until rejoin() orders them back into it.
struct Communicator {
  std::unique_ptr<NcclCommunicator> comm;
  std::vector<std::shared_ptr<runtime::Buffer>> beside;
};

} // namespace

void addCollectives(py::module_ &m) {
  m.def("_nccl_available", &runtime::ncclAvailable,
        "whether NCCL (libnccl.so.2) loads");
  m.def("_nccl_version", &runtime::ncclVersion);
  m.def(
      "_nccl_unique_id",
      [] {
        runtime::NcclUniqueId id = runtime::ncclNewUniqueId();
        return py::bytes(reinterpret_cast<const char *>(id.data()), id.size());
      },
      "a new NCCL unique id (128 bytes) for rank 0 to send to the others");
  py::class_<Communicator, std::shared_ptr<Communicator>>(m,
                                                         "_NcclCommunicator")
      .def(py::init([](std::shared_ptr<runtime::Device> device, int ranks,
                       const py::bytes &id, int rank) {
             std::string raw = id;
             runtime::NcclUniqueId unique{};
             if (raw.size() != unique.size())
               throw std::logic_error("internal error (a bug in spirjit): an "
                                      "NCCL unique id has 128 bytes");
             std::copy(raw.begin(), raw.end(), unique.begin());
             py::gil_scoped_release unlocked; // NCCL waits for every rank
             auto out = std::make_shared<Communicator>();
             out->comm = std::make_unique<NcclCommunicator>(
                 std::move(device), ranks, unique, rank);
             return out;
           }),
           py::arg("device"), py::arg("ranks"), py::arg("unique_id"),
           py::arg("rank"))
      .def(
          "sendrecv",
          [](Communicator &self, const py::list &transfers, bool beside) {
            // Each (send, dest, receive, source). Pending values are
            // computed (queued) first; NCCL then runs behind them.
            std::vector<NcclCommunicator::Transfer> group;
            std::vector<std::shared_ptr<runtime::Buffer>> held;
            for (const py::handle &item : transfers) {
              auto [send, dest, receive, source] =
                  item.cast<std::tuple<const DeviceArray &, int,
                                       const DeviceArray &, int>>();
              std::shared_ptr<runtime::Buffer> from = send.buffer();
              std::shared_ptr<runtime::Buffer> into = receive.writableBuffer();
              auto [type, count] = elementsOf(send);
              group.push_back({addressOf(from, send), dest,
                               addressOf(into, receive), source, count, type});
              held.push_back(std::move(from));
              held.push_back(std::move(into));
            }
            self.comm->sendReceive(group, beside);
            if (beside)
              self.beside.insert(self.beside.end(), held.begin(), held.end());
            else
              launch::retainUntilQueueDone(self.comm->device(),
                                           std::move(held));
          },
          py::arg("transfers"), py::arg("beside") = false)
      .def("rejoin",
           [](Communicator &self) {
             self.comm->rejoin();
             launch::retainUntilQueueDone(self.comm->device(),
                                          std::move(self.beside));
             self.beside.clear();
           })
      .def(
          "allreduce",
          [](Communicator &self, const DeviceArray &send,
             const DeviceArray &receive, const std::string &op) {
            std::shared_ptr<runtime::Buffer> from = send.buffer();
            std::shared_ptr<runtime::Buffer> into = receive.writableBuffer();
            auto [type, count] = elementsOf(send);
            self.comm->allReduce(addressOf(from, send),
                                 addressOf(into, receive), count, type,
                                 opNamed(op));
            launch::retainUntilQueueDone(self.comm->device(), {from, into});
          },
          py::arg("send"), py::arg("receive"), py::arg("op"));
}

} // namespace spirjit::python
