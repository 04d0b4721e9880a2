// The helpers of lists in jit host code (HostABI.h): a list the call owns,
// grown as it is appended to, and sorted() of one.
#include "launch/HostCall.h"

#include "compiler/HostABI.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace spirjit::launch {
namespace {

/// The items of `list`, of type T, sorted as Python's sorted() orders
/// numbers: stably by `<`; reverse= keeps equal items in their order too.
/// (With a NaN, whose comparisons are all false, Python's order is its
/// merge's; a stable merge sort gives an order too, not always the same.)
template <typename T> void sortItems(spirjit_host_list *list, bool reverse) {
  T *begin = static_cast<T *>(list->data);
  T *end = begin + list->length;
  if (reverse)
    std::stable_sort(begin, end, [](T a, T b) { return b < a; });
  else
    std::stable_sort(begin, end, [](T a, T b) { return a < b; });
}

} // namespace

extern "C" void *spirjit_host_list_new(void *context, int64_t count,
                                       int64_t itemsize) {
  auto &call = *static_cast<HostCall *>(context);
  try {
    call.lists.reserve(call.lists.size() + 1);
    auto *list = static_cast<spirjit_host_list *>(
        std::calloc(1, sizeof(spirjit_host_list)));
    if (!list)
      throw std::bad_alloc();
    call.lists.push_back(list);
    list->capacity = std::max<int64_t>(count, 4);
    list->data = std::calloc(static_cast<size_t>(list->capacity),
                             static_cast<size_t>(itemsize));
    if (!list->data)
      throw std::bad_alloc();
    list->length = count;
    return list;
  } catch (...) {
    call.error = std::current_exception();
    return nullptr;
  }
}

extern "C" void *spirjit_host_list_append(void *context, void *handle,
                                          int64_t itemsize) {
  auto &call = *static_cast<HostCall *>(context);
  auto *list = static_cast<spirjit_host_list *>(handle);
  if (list->length == list->capacity) {
    // Doubling, as CPython's and numba's lists grow: appends cost O(1)
    // amortised.
    int64_t capacity = list->capacity * 2;
    void *grown = std::realloc(list->data, static_cast<size_t>(capacity) *
                                               static_cast<size_t>(itemsize));
    if (!grown) {
      call.error = std::make_exception_ptr(std::bad_alloc());
      return nullptr;
    }
    list->data = grown;
    list->capacity = capacity;
  }
  list->changed = 1;
  return static_cast<char *>(list->data) + itemsize * list->length++;
}

extern "C" void *spirjit_host_list_sorted(void *context, void *handle,
                                          int64_t itemsize, int32_t item,
                                          int32_t reverse) {
  auto *from = static_cast<spirjit_host_list *>(handle);
  auto *list = static_cast<spirjit_host_list *>(
      spirjit_host_list_new(context, from->length, itemsize));
  if (!list)
    return nullptr;
  std::memcpy(list->data, from->data,
              static_cast<size_t>(from->length * itemsize));
  bool floating = item & 256, isUnsigned = item & 512;
  switch (item & 255) {
  case 1:
    isUnsigned ? sortItems<uint8_t>(list, reverse)
               : sortItems<int8_t>(list, reverse);
    break;
  case 2:
    isUnsigned ? sortItems<uint16_t>(list, reverse)
               : sortItems<int16_t>(list, reverse);
    break;
  case 4:
    floating     ? sortItems<float>(list, reverse)
    : isUnsigned ? sortItems<uint32_t>(list, reverse)
                 : sortItems<int32_t>(list, reverse);
    break;
  default:
    floating     ? sortItems<double>(list, reverse)
    : isUnsigned ? sortItems<uint64_t>(list, reverse)
                 : sortItems<int64_t>(list, reverse);
  }
  return list;
}

} // namespace spirjit::launch
