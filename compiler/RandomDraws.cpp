// np.random's calls become `random` instructions (RandomDraws.h states the
// contract).
#include "compiler/RandomDraws.h"

#include "compiler/Parfor.h"
#include "frontend/Diagnostics.h"
#include "frontend/Dominators.h"

#include <algorithm>

namespace spirjit {

using ir::Block;
using ir::Instruction;
using ir::Opcode;

namespace {

const std::vector<RandomFunction> &randomFunctions() {
  static const std::vector<RandomFunction> functions = {
      {"seed", RandomDraw::Seed, {"seed"}, {0, 0}},
      {"random", RandomDraw::Uniform, {"size"}, {0.0, 1.0}},
      {"random_sample", RandomDraw::Uniform, {"size"}, {0.0, 1.0}},
      {"sample", RandomDraw::Uniform, {"size"}, {0.0, 1.0}},
      {"ranf", RandomDraw::Uniform, {"size"}, {0.0, 1.0}},
      {"rand", RandomDraw::Uniform, {}, {0.0, 1.0}},
      {"randn", RandomDraw::Normal, {}, {0.0, 1.0}},
      {"uniform", RandomDraw::Uniform, {"low", "high", "size"}, {0.0, 1.0}},
      {"normal", RandomDraw::Normal, {"loc", "scale", "size"}, {0.0, 1.0}},
      // randint(high) draws from [0, high): the lowering reads a missing
      // high so.
      {"randint", RandomDraw::Integer, {"low", "high", "size"}, {0, 0}},
  };
  return functions;
}

/// A new instruction placed right before `at` (create appends it).
Instruction *createBefore(ir::Function &fn, Instruction *at, Opcode opcode,
                          std::vector<Instruction *> operands,
                          const Type *type) {
  Block *block = at->parent;
  Instruction *made = fn.create(block, opcode, std::move(operands), at->line);
  made->type = type;
  auto &list = block->instructions;
  auto position = std::find_if(list.begin(), list.end(),
                               [&](const auto &i) { return i.get() == at; });
  std::rotate(position, std::prev(list.end()), list.end());
  return made;
}

bool usedAnywhere(const ir::Function &fn, const Instruction *value) {
  for (const auto &block : fn.blocks)
    for (const auto &inst : block->instructions)
      if (std::count(inst->operands.begin(), inst->operands.end(), value))
        return true;
  return false;
}

/// The value a for loop gives each iteration, if it is an integer or a
/// tuple of them (range, prange, pndindex), else nullptr.
Instruction *iterationValue(const ir::Loop &loop) {
  const Instruction *iterator = nullptr;
  for (const auto &inst : loop.header->instructions)
    if (inst->isa(Opcode::IterValid))
      iterator = inst->operands[0];
  if (!iterator)
    return nullptr;
  for (Block *block : loop.blocks)
    for (const auto &inst : block->instructions)
      if (inst->isa(Opcode::IterNext) && inst->operands[0] == iterator) {
        auto integer = [](const Type *e) {
          return e->kind == TypeKind::Int || e->kind == TypeKind::WeakInt;
        };
        const Type *t = inst->type;
        bool integers =
            integer(t) || (t->kind == TypeKind::Tuple &&
                           std::all_of(t->elements.begin(),
                                       t->elements.end(), integer));
        return integers ? inst.get() : nullptr;
      }
  return nullptr;
}

} // namespace

const RandomFunction *findRandomFunction(const std::string &qualifiedName) {
  const std::string prefix = "numpy.random.";
  if (qualifiedName.compare(0, prefix.size(), prefix) != 0)
    return nullptr;
  std::string name = qualifiedName.substr(prefix.size());
  for (const RandomFunction &f : randomFunctions())
    if (name == f.name)
      return &f;
  return nullptr;
}

std::string randomFunctionNames() {
  std::string names;
  for (const RandomFunction &f : randomFunctions())
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  return names;
}

const Type *randomDrawType(RandomDraw draw) {
  switch (draw) {
  case RandomDraw::Seed:
    return types::none();
  case RandomDraw::Stream:
  case RandomDraw::Integer:
    return types::int64();
  case RandomDraw::Uniform:
  case RandomDraw::Normal:
    return types::floating(64);
  }
  return nullptr;
}

void lowerRandomDraws(TypedFunction &host) {
  ir::Function &fn = *host.function;
  std::vector<std::pair<Instruction *, const RandomFunction *>> calls;
  for (auto &block : fn.blocks)
    for (auto &inst : block->instructions)
      if (inst->isa(Opcode::Call) &&
          inst->operands[0]->type->kind == TypeKind::Function)
        if (const RandomFunction *f =
                findRandomFunction(inst->operands[0]->type->name))
          calls.push_back({inst.get(), f});
  if (calls.empty())
    return;
  ir::DominatorTree dominators(fn);
  ir::LoopTree loops(fn, dominators);
  std::map<const ir::Loop *, Instruction *> streams;
  for (auto [call, f] : calls) {
    // The draw's parameters, NumPy's defaults where the call leaves them.
    std::vector<Instruction *> operands;
    const auto *given = host.callArguments.find(call);
    auto argument = [&](size_t i) -> Instruction * {
      const Instruction *a =
          given ? (i < given->size() ? (*given)[i] : nullptr)
                : (i + 1 < call->operands.size() ? call->operands[i + 1]
                                                 : nullptr);
      return a && a->type->kind != TypeKind::None
                 ? const_cast<Instruction *>(a)
                 : nullptr;
    };
    auto constant = [&](ConstValue value, const Type *type) {
      Instruction *c = createBefore(fn, call, Opcode::Const, {}, type);
      c->constant = value;
      return c;
    };
    if (f->draw == RandomDraw::Seed) {
      operands.push_back(argument(0));
    } else if (f->draw == RandomDraw::Integer) {
      Instruction *low = argument(0), *high = argument(1);
      if (!high) // randint(high)
        std::swap(low, high),
            low = constant(ConstValue::ofInt(0), types::weakInt());
      operands = {low, high};
    } else {
      bool takesParameters = f->parameters.size() == 3;
      for (size_t i = 0; i < 2; ++i) {
        Instruction *a = takesParameters ? argument(i) : nullptr;
        operands.push_back(a ? a
                             : constant(ConstValue::ofFloat(f->defaults[i]),
                                        types::weakFloat()));
      }
    }
    // Inside a prange loop: the loop's stream, then the indices of the for
    // loops from it inward.
    std::vector<const ir::Loop *> around;
    for (const ir::Loop *loop = loops.loopFor(call->parent); loop;
         loop = loop->parent)
      around.push_back(loop);
    auto outermost = std::find_if(around.rbegin(), around.rend(),
                                  [](const ir::Loop *loop) {
                                    return parallelCallOf(*loop) != nullptr;
                                  });
    if (outermost != around.rend()) {
      if (f->draw == RandomDraw::Seed)
        throw UserError(UserErrorKind::UnsupportedFeature,
                        host.description->filename, call->line,
                        "np.random.seed() in a prange loop's body: each "
                        "work-item draws from the loop's own stream; seed "
                        "before the loop");
      const ir::Loop *parallel = *outermost;
      Instruction *&stream = streams[parallel];
      if (!stream) {
        Block *preheader = nullptr;
        for (Block *pred : parallel->header->predecessors)
          if (!parallel->contains(pred)) {
            SPIRJIT_INTERNAL_CHECK(!preheader,
                                   "a prange loop entered from two blocks");
            preheader = pred;
          }
        SPIRJIT_INTERNAL_CHECK(preheader, "a prange loop with no entry");
        stream = createBefore(fn, preheader->terminator(), Opcode::Random, {},
                              randomDrawType(RandomDraw::Stream));
        stream->index = static_cast<int64_t>(RandomDraw::Stream);
      }
      operands.push_back(stream);
      for (auto loop = outermost; loop != around.rend(); ++loop)
        if (Instruction *index = iterationValue(**loop))
          operands.push_back(index);
    }
    Instruction *callee = call->operands[0];
    call->opcode = Opcode::Random;
    call->index = static_cast<int64_t>(f->draw);
    call->name.clear();
    call->operands = operands;
    call->type = randomDrawType(f->draw);
    // np.random.<name>: read by nothing now.
    while (callee && !usedAnywhere(fn, callee) &&
           (callee->isa(Opcode::GetAttr) || callee->isa(Opcode::Global))) {
      Instruction *object =
          callee->isa(Opcode::GetAttr) ? callee->operands[0] : nullptr;
      fn.erase(callee);
      callee = object;
    }
  }
}

} // namespace spirjit
