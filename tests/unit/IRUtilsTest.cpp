// The IR utilities the parfor stage builds on, on pyir of real Python
// functions (tests/fixtures/functions.py): cloning, dominators and the
// loop tree.
#include "Fixtures.h"

#include "compiler/CloneTyped.h"
#include "frontend/BuildPyIR.h"
#include "frontend/Bytecode.h"
#include "frontend/CloneFunction.h"
#include "frontend/ControlFlowGraph.h"
#include "frontend/Diagnostics.h"
#include "frontend/Dominators.h"

#include <gtest/gtest.h>

#include <set>

using namespace spirjit;
using namespace spirjit::ir;
using spirjit::testing::loadFixture;

namespace {

std::unique_ptr<Function> pyirOf(const char *name) {
  FunctionDescription f = loadFixture("py311", name);
  return buildPyIR(f, buildControlFlowGraph(decodeBytecode(f)));
}

/// The block printed as bb<id>.
Block *block(const Function &function, unsigned id) {
  for (const auto &block : function.blocks)
    if (block->id == id)
      return block.get();
  ADD_FAILURE() << "no bb" << id << " in " << function.name;
  return nullptr;
}

std::vector<unsigned> ids(const std::vector<Block *> &blocks) {
  std::vector<unsigned> result;
  for (Block *block : blocks)
    result.push_back(block->id);
  return result;
}

const Loop *loopWithHeader(const LoopTree &loops, const Block *header) {
  for (const auto &loop : loops.loops())
    if (loop->header == header)
      return loop.get();
  return nullptr;
}

unsigned countOpcode(const Function &function, Opcode opcode) {
  unsigned count = 0;
  for (const auto &block : function.blocks)
    for (const auto &inst : block->instructions)
      count += inst->opcode == opcode;
  return count;
}

} // namespace

TEST(CloneFunction, VerifiesAndPrintsAsTheOriginal) {
  for (const char *name : {"vecadd", "diamond", "loop_branch", "while_break",
                           "nested_loops", "nested_sum", "loop_in_branch"}) {
    SCOPED_TRACE(name);
    auto original = pyirOf(name);
    ValueMap map;
    auto clone = cloneFunction(*original, map);
    EXPECT_EQ(verify(*clone), "");
    EXPECT_EQ(print(*clone), print(*original));

    // The map pairs every original with a distinct copy in the clone, and
    // the clone shares nothing with the original.
    std::set<const Instruction *> copies;
    for (const auto &block : original->blocks) {
      ASSERT_TRUE(map.blocks.count(block.get()));
      EXPECT_EQ(map.blocks.at(block.get())->parent, clone.get());
      for (const auto &inst : block->instructions) {
        Instruction *copy = map.values.at(inst.get());
        EXPECT_EQ(copy->parent, map.blocks.at(block.get()));
        copies.insert(copy);
        for (Instruction *operand : copy->operands)
          EXPECT_EQ(operand->parent->parent, clone.get());
      }
    }
    EXPECT_EQ(copies.size(), map.values.size());
  }
}

TEST(CloneFunction, LaterInstructionsGetUnusedIds) {
  // nested_sum's ids have gaps and do not follow the block order, so the
  // clone's counter must move past every id it copied.
  auto original = pyirOf("nested_sum");
  ValueMap map;
  auto clone = cloneFunction(*original, map);
  std::set<unsigned> used, usedBlocks;
  for (const auto &block : clone->blocks) {
    usedBlocks.insert(block->id);
    for (const auto &inst : block->instructions)
      used.insert(inst->id);
  }
  Block *added = clone->addBlock();
  EXPECT_FALSE(usedBlocks.count(added->id));
  EXPECT_FALSE(used.count(clone->create(added, Opcode::Const, {}, 1)->id));
}

TEST(CloneTypedFunction, RemapsTheSideTables) {
  // two_d folds the global SCALE and math/NumPy attributes to constants.
  FunctionDescription f = loadFixture("py311", "two_d");
  const Type *f32 = types::fromDTypeName("float32");
  std::vector<const Type *> args{types::item(2), types::array(f32, 2, 'C'),
                                 types::array(f32, 2, 'C')};
  static Specializations specializations;
  TypedFunction typed =
      inferTypes(f, buildPyIR(f, buildControlFlowGraph(decodeBytecode(f))),
                 args, FunctionKind::Kernel, specializations);
  size_t folded = 0;
  const Instruction *someConstant = nullptr;
  typed.constants.forEach(*typed.function,
                          [&](const Instruction *inst, const ConstValue &) {
                            ++folded;
                            someConstant = inst;
                          });
  ASSERT_GT(folded, 0u);
  // No fixture calls a device function: stand in entries whose remapping
  // shows, a callee and arguments with a default left out.
  const Instruction *someCall = nullptr;
  const Instruction *someArgument = nullptr;
  for (const auto &block : typed.function->blocks)
    for (const auto &inst : block->instructions) {
      if (inst->opcode == Opcode::Call && !someCall)
        someCall = inst.get();
      if (inst->opcode == Opcode::Arg)
        someArgument = inst.get();
    }
  ASSERT_TRUE(someCall && someArgument);
  typed.calls[someCall] = &typed;
  typed.callArguments[someCall] = {someArgument, nullptr};

  ValueMap map;
  TypedFunction clone = cloneTypedFunction(typed, map);
  auto withTypes = [](const Instruction &inst) {
    return inst.type ? inst.type->str() : std::string("?");
  };
  EXPECT_EQ(print(*clone.function, withTypes),
            print(*typed.function, withTypes));
  EXPECT_EQ(clone.argumentTypes, typed.argumentTypes);
  EXPECT_EQ(clone.returnType, typed.returnType);

  size_t copied = 0;
  typed.constants.forEach(
      *typed.function, [&](const Instruction *inst, const ConstValue &value) {
        const Instruction *copy = map.values.at(inst);
        ASSERT_TRUE(clone.constants.contains(copy));
        EXPECT_EQ(clone.constants.at(copy).str(), value.str());
        ++copied;
      });
  size_t inClone = 0;
  clone.constants.forEach(*clone.function,
                          [&](const Instruction *, const ConstValue &) {
                            ++inClone;
                          });
  EXPECT_EQ(copied, folded);
  EXPECT_EQ(inClone, folded);
  EXPECT_EQ(clone.calls.at(map.values.at(someCall)), &typed);
  EXPECT_EQ(
      clone.callArguments.at(map.values.at(someCall)),
      (std::vector<const Instruction *>{map.values.at(someArgument), nullptr}));
  EXPECT_EQ(constantOf(clone, map.values.at(someConstant))->str(),
            typed.constants.at(someConstant).str());
}

TEST(InstructionTable, ForgetsAnErasedInstructionWhoseAddressIsReused) {
  // A pass erases an instruction with a folded constant, then creates
  // another; the allocator often hands the new one the freed address. The
  // table must not give the new instruction the old one's constant (it
  // once made a prange's step 0).
  Function f;
  Block *b = f.addBlock();
  InstructionTable<ConstValue> constants;
  std::vector<const Instruction *> reused;
  for (int k = 0; k < 16; ++k) {
    Instruction *old = f.create(b, Opcode::Global, {}, 1);
    constants[old] = ConstValue::ofInt(0);
    ASSERT_TRUE(constants.contains(old));
    f.erase(old);
    Instruction *fresh = f.create(b, Opcode::Global, {}, 1);
    if (fresh == old)
      reused.push_back(fresh);
    EXPECT_EQ(constants.find(fresh), nullptr);
    constants[fresh] = ConstValue::ofInt(k);
    EXPECT_EQ(constants.at(fresh).intValue, k);
  }
  // glibc's allocator reuses the address; the test means something only
  // when it did at least once.
  EXPECT_FALSE(reused.empty());
}

TEST(Dominators, Diamond) {
  // bb1: if x > y; bb2, bb3: the arms; bb4: the join.
  auto f = pyirOf("diamond");
  DominatorTree dominators(*f);
  Block *test = block(*f, 1), *yes = block(*f, 2), *no = block(*f, 3),
        *join = block(*f, 4);
  EXPECT_EQ(dominators.idom(f->blocks[0].get()), nullptr);
  EXPECT_EQ(dominators.idom(test), f->blocks[0].get());
  EXPECT_EQ(dominators.idom(yes), test);
  EXPECT_EQ(dominators.idom(no), test);
  EXPECT_EQ(dominators.idom(join), test);
  EXPECT_TRUE(dominators.dominates(test, join));
  EXPECT_TRUE(dominators.dominates(join, join));
  EXPECT_FALSE(dominators.dominates(yes, join));
  EXPECT_FALSE(dominators.dominates(no, join));
  EXPECT_FALSE(dominators.dominates(join, test));
  EXPECT_EQ(ids(dominators.children(test)), (std::vector<unsigned>{2, 3, 4}));
}

TEST(Dominators, NestedLoops) {
  // nested_sum: bb2 outer header, bb3 inner preheader, bb4 inner header,
  // bb5 inner body, bb6 inner exit and outer latch, bb7 after both.
  auto f = pyirOf("nested_sum");
  DominatorTree dominators(*f);
  EXPECT_EQ(dominators.idom(block(*f, 3)), block(*f, 2));
  EXPECT_EQ(dominators.idom(block(*f, 4)), block(*f, 3));
  EXPECT_EQ(dominators.idom(block(*f, 5)), block(*f, 4));
  EXPECT_EQ(dominators.idom(block(*f, 6)), block(*f, 4));
  EXPECT_EQ(dominators.idom(block(*f, 7)), block(*f, 2));
  EXPECT_TRUE(dominators.dominates(block(*f, 2), block(*f, 5)));
  EXPECT_FALSE(dominators.dominates(block(*f, 5), block(*f, 6)));
  EXPECT_FALSE(dominators.dominates(block(*f, 4), block(*f, 7)));
  EXPECT_EQ(dominators.reversePostOrder().size(), f->blocks.size());
}

TEST(Dominators, UnreachableBlocksDominateNothing) {
  auto f = pyirOf("diamond");
  Block *orphan = f->addBlock();
  f->create(orphan, Opcode::Branch, {}, 1)->targets = {block(*f, 4)};
  block(*f, 4)->predecessors.push_back(orphan);
  DominatorTree dominators(*f);
  EXPECT_FALSE(dominators.isReachable(orphan));
  EXPECT_EQ(dominators.idom(orphan), nullptr);
  EXPECT_FALSE(dominators.dominates(orphan, block(*f, 4)));
  EXPECT_EQ(dominators.idom(block(*f, 4)), block(*f, 1));
}

TEST(LoopTree, DoublyNestedLoop) {
  auto f = pyirOf("nested_sum");
  DominatorTree dominators(*f);
  LoopTree loops(*f, dominators);
  ASSERT_EQ(loops.loops().size(), 2u);
  const Loop *outer = loopWithHeader(loops, block(*f, 2));
  const Loop *inner = loopWithHeader(loops, block(*f, 4));
  ASSERT_TRUE(outer && inner);

  EXPECT_EQ(ids(outer->blocks), (std::vector<unsigned>{2, 3, 4, 5, 6}));
  EXPECT_EQ(ids(outer->latches), (std::vector<unsigned>{6}));
  EXPECT_EQ(ids(outer->exits), (std::vector<unsigned>{7}));
  EXPECT_EQ(outer->parent, nullptr);
  EXPECT_EQ(outer->depth, 1u);
  EXPECT_EQ(outer->children, (std::vector<Loop *>{const_cast<Loop *>(inner)}));

  EXPECT_EQ(ids(inner->blocks), (std::vector<unsigned>{4, 5}));
  EXPECT_EQ(ids(inner->latches), (std::vector<unsigned>{5}));
  EXPECT_EQ(ids(inner->exits), (std::vector<unsigned>{6}));
  EXPECT_EQ(inner->parent, outer);
  EXPECT_EQ(inner->depth, 2u);
  EXPECT_TRUE(inner->children.empty());

  EXPECT_EQ(loops.outermost(),
            (std::vector<Loop *>{const_cast<Loop *>(outer)}));
  EXPECT_EQ(loops.loopFor(block(*f, 5)), inner);
  EXPECT_EQ(loops.loopFor(block(*f, 6)), outer);
  EXPECT_EQ(loops.loopFor(block(*f, 7)), nullptr);
  EXPECT_EQ(loops.depth(block(*f, 5)), 2u);
  EXPECT_EQ(loops.depth(block(*f, 3)), 1u);
  EXPECT_EQ(loops.depth(block(*f, 1)), 0u);
}

TEST(LoopTree, LoopInsideAnIf) {
  // loop_in_branch: bb1 tests i > 0; bb2..bb5 the loop on the true side
  // (bb3 its header), bb6 the else arm, bb7 the join.
  auto f = pyirOf("loop_in_branch");
  DominatorTree dominators(*f);
  LoopTree loops(*f, dominators);
  ASSERT_EQ(loops.loops().size(), 1u);
  const Loop &loop = *loops.loops().front();
  EXPECT_EQ(loop.header, block(*f, 3));
  EXPECT_EQ(ids(loop.blocks), (std::vector<unsigned>{3, 4}));
  EXPECT_EQ(ids(loop.latches), (std::vector<unsigned>{4}));
  EXPECT_EQ(ids(loop.exits), (std::vector<unsigned>{5}));
  EXPECT_EQ(loop.depth, 1u);
  EXPECT_EQ(loop.parent, nullptr);
  EXPECT_TRUE(dominators.dominates(block(*f, 2), loop.header));
  EXPECT_FALSE(loop.contains(block(*f, 6)));
  EXPECT_FALSE(loop.contains(block(*f, 7)));
  EXPECT_EQ(loops.depth(block(*f, 6)), 0u);
}
