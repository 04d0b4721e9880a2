// The parfor stage without an interpreter: loop discovery, outlining and
// reduction recognition on prange functions of tests/fixtures/functions.py.
#include "Fixtures.h"

#include "compiler/Parfor.h"
#include "compiler/TypeInference.h"
#include "frontend/BuildPyIR.h"
#include "frontend/Bytecode.h"
#include "frontend/ControlFlowGraph.h"
#include "frontend/Diagnostics.h"

#include <gtest/gtest.h>

namespace spirjit {
namespace {

struct HostFixture {
  FunctionDescription description;
  Specializations specializations;
  TypedFunction typed;
};

std::unique_ptr<HostFixture> typedHost(const std::string &name,
                                       std::vector<const Type *> args) {
  auto host = std::make_unique<HostFixture>();
  host->description = testing::loadFixture("py311", name);
  const FunctionDescription &f = host->description;
  auto ir = buildPyIR(f, buildControlFlowGraph(decodeBytecode(f)));
  host->specializations.deviceFunctions = &f.deviceFunctions;
  host->typed = inferTypes(f, std::move(ir), args, FunctionKind::Host,
                           host->specializations);
  return host;
}

int countOpcode(const ir::Function &f, ir::Opcode opcode) {
  int n = 0;
  for (const auto &block : f.blocks)
    for (const auto &inst : block->instructions)
      n += inst->isa(opcode);
  return n;
}

TEST(Parfor, PerfectNestBecomesOneTwoDimensionalLaunch) {
  const Type *a = types::array(types::floating(32), 2, 'C');
  auto host = typedHost("parfor_nest", {a, a});
  std::vector<Parfor> parfors = outlineParfors(host->typed);
  ASSERT_EQ(parfors.size(), 1u);
  EXPECT_EQ(parfors[0].dims, 2);
  EXPECT_TRUE(parfors[0].reductions.empty());
  // prange(1, n - 1): start and stop of each dimension, from the host.
  ASSERT_EQ(parfors[0].ranges.size(), 2u);
  EXPECT_EQ(parfors[0].ranges[0].size(), 2u);
  // The loops are gone from the host; the kernel has none and reads its
  // indices from the work-item.
  EXPECT_EQ(countOpcode(*host->typed.function, ir::Opcode::IterNext), 0);
  const ir::Function &kernel = *parfors[0].kernel->prebuiltPyIR;
  EXPECT_EQ(countOpcode(kernel, ir::Opcode::IterNext), 0);
  EXPECT_EQ(kernel.parameterNames.front(), "item");
  EXPECT_EQ(ir::verify(kernel), "");
  EXPECT_EQ(ir::verify(*host->typed.function), "");
}

TEST(Parfor, RecognisesSumAndMinReductions) {
  auto host = typedHost("parfor_reductions",
                        {types::array(types::floating(64), 1, 'C')});
  std::vector<Parfor> parfors = outlineParfors(host->typed);
  ASSERT_EQ(parfors.size(), 1u);
  ASSERT_EQ(parfors[0].reductions.size(), 2u);
  EXPECT_EQ(parfors[0].reductions[0].op, ReductionOp::Add);
  EXPECT_EQ(parfors[0].reductions[1].op, ReductionOp::Min);
  EXPECT_EQ(parfors[0].dims, 1);
  // After the values: the first iteration, chunk, trips, stride, and one
  // partial array per reduction.
  const auto &types = parfors[0].kernelArgumentTypes;
  ASSERT_EQ(types.size(), parfors[0].arguments.size() + 6);
  EXPECT_EQ(types[types.size() - 1]->kind, TypeKind::Array);
  // The kernel keeps a loop: each work-item's share of the iterations.
  EXPECT_EQ(countOpcode(*parfors[0].kernel->prebuiltPyIR, ir::Opcode::IterNext),
            1);
  EXPECT_EQ(reductionIdentity(ReductionOp::Min, types::int64()).intValue,
            INT64_MAX);
  EXPECT_EQ(reductionIdentity(ReductionOp::And, types::integer(8, false))
                .intValue,
            -1);
}

TEST(Parfor, CarriedScalarIsAnErrorAtItsLine) {
  auto host = typedHost("parfor_carried",
                        {types::array(types::floating(64), 1, 'C')});
  try {
    outlineParfors(host->typed);
    FAIL() << "a carried scalar was accepted";
  } catch (const UserError &e) {
    EXPECT_EQ(e.kind(), UserErrorKind::UnsupportedFeature);
    EXPECT_NE(std::string(e.what()).find("not as a reduction"),
              std::string::npos);
    // `a[i] = a[i] - last`, the read, is the line named.
    EXPECT_EQ(e.line(), host->description.firstLine + 3);
  }
}

} // namespace
} // namespace spirjit
