// np.random's draws (compiler/RandomDraws.h): 64 bits from a hash of
// counters, then NumPy's distributions of them.
#include "compiler/lower/Lowering.h"

#include "compiler/RandomDraws.h"

#include <cmath>

namespace spirjit::lower {

namespace {

/// splitmix64's finaliser of z + the golden ratio: a bijection of 64-bit
/// words whose every output bit depends on every input bit.
llvm::Value *mix(llvm::IRBuilder<> &b, llvm::Value *z) {
  z = b.CreateAdd(z, b.getInt64(0x9E3779B97F4A7C15ULL));
  z = b.CreateMul(b.CreateXor(z, b.CreateLShr(z, 30)),
                  b.getInt64(0xBF58476D1CE4E5B9ULL));
  z = b.CreateMul(b.CreateXor(z, b.CreateLShr(z, 27)),
                  b.getInt64(0x94D049BB133111EBULL));
  return b.CreateXor(z, b.CreateLShr(z, 31));
}

/// The hash of a sequence of words: each mixed into the last's hash.
llvm::Value *hashWords(llvm::IRBuilder<> &b,
                       const std::vector<llvm::Value *> &words) {
  llvm::Value *h = mix(b, words[0]);
  for (size_t i = 1; i < words.size(); ++i)
    h = mix(b, b.CreateXor(h, words[i]));
  return h;
}

} // namespace

Lowered Lowering::lowerRandom(const Instruction &inst) {
  auto draw = static_cast<RandomDraw>(inst.index);
  auto *i64 = builder_.getInt64Ty();
  const Type *f64 = types::floating(64);
  if (draw == RandomDraw::Seed) {
    SPIRJIT_INTERNAL_CHECK(isHost(), "np.random.seed outside host code");
    builder_.CreateCall(
        hostHelper("spirjit_host_random_seed", builder_.getVoidTy(), {i64}),
        {scalarOf(inst.operands[0], types::int64())});
    return {};
  }
  size_t parameters = draw == RandomDraw::Stream ? 0 : 2;
  // The words one draw hashes: in host code the thread's key and counter;
  // in a kernel the loop's stream, the iteration's indices and the count of
  // this work-item's draws (in the entry block, from 0).
  std::vector<llvm::Value *> words;
  if (!randomSlot_) {
    llvm::BasicBlock &entry = function_->getEntryBlock();
    allocaBuilder_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
    randomSlot_ = allocaBuilder_.CreateAlloca(i64, nullptr, "random");
    allocaBuilder_.CreateStore(builder_.getInt64(0), randomSlot_);
  }
  if (isHost()) {
    SPIRJIT_INTERNAL_CHECK(inst.operands.size() == parameters,
                           "a host draw with a kernel's stream");
  } else {
    SPIRJIT_INTERNAL_CHECK(inst.operands.size() > parameters,
                           "a kernel's draw without its loop's stream");
    for (size_t i = parameters; i < inst.operands.size(); ++i) {
      const Instruction *word = inst.operands[i];
      const Lowered &value = values_.at(word);
      if (word->type->kind == TypeKind::Tuple) {
        for (size_t k = 0; k < value.elements.size(); ++k)
          words.push_back(convert(value.elements[k].scalar,
                                  word->type->elements[k], types::int64()));
      } else {
        words.push_back(scalarOf(word, types::int64()));
      }
    }
  }
  auto bits = [&]() -> llvm::Value * {
    if (isHost()) {
      llvm::Value *count = builder_.CreateCall(
          hostHelper("spirjit_host_random", i64, {randomSlot_->getType()}),
          {randomSlot_});
      return hashWords(builder_,
                       {builder_.CreateLoad(i64, randomSlot_), count});
    }
    llvm::Value *counter = builder_.CreateLoad(i64, randomSlot_);
    builder_.CreateStore(builder_.CreateAdd(counter, builder_.getInt64(1)),
                         randomSlot_);
    std::vector<llvm::Value *> all = words;
    all.push_back(counter);
    return hashWords(builder_, all);
  };
  // 53 random bits as a double in [0, 1) (`open`: in (0, 1]).
  auto unit = [&](bool open) {
    llvm::Value *top = builder_.CreateLShr(bits(), 11);
    if (open)
      top = builder_.CreateAdd(top, builder_.getInt64(1));
    return builder_.CreateFMul(builder_.CreateUIToFP(top,
                                                     builder_.getDoubleTy()),
                               llvm::ConstantFP::get(builder_.getDoubleTy(),
                                                     std::ldexp(1.0, -53)));
  };
  switch (draw) {
  case RandomDraw::Stream:
    return {bits()};
  case RandomDraw::Uniform: {
    llvm::Value *low = scalarOf(inst.operands[0], f64);
    llvm::Value *high = scalarOf(inst.operands[1], f64);
    llvm::Value *u = unit(false);
    return {builder_.CreateFAdd(
        low, builder_.CreateFMul(builder_.CreateFSub(high, low), u))};
  }
  case RandomDraw::Normal: {
    // Box-Muller: sqrt(-2 ln u1) cos(2 pi u2), u1 in (0, 1].
    llvm::Value *loc = scalarOf(inst.operands[0], f64);
    llvm::Value *scale = scalarOf(inst.operands[1], f64);
    llvm::Value *u1 = unit(true);
    llvm::Value *u2 = unit(false);
    auto *dbl = builder_.getDoubleTy();
    llvm::Value *radius = target_.emitMathCall(
        builder_, "sqrt",
        {builder_.CreateFMul(llvm::ConstantFP::get(dbl, -2.0),
                             target_.emitMathCall(builder_, "log", {u1}))});
    llvm::Value *angle = target_.emitMathCall(
        builder_, "cos",
        {builder_.CreateFMul(llvm::ConstantFP::get(dbl, 2 * M_PI), u2)});
    return {builder_.CreateFAdd(
        loc, builder_.CreateFMul(scale, builder_.CreateFMul(radius, angle)))};
  }
  case RandomDraw::Integer: {
    llvm::Value *low = scalarOf(inst.operands[0], types::int64());
    llvm::Value *high = scalarOf(inst.operands[1], types::int64());
    llvm::Value *span = builder_.CreateSub(high, low);
    span = builder_.CreateSelect(
        builder_.CreateICmpSGT(span, builder_.getInt64(0)), span,
        builder_.getInt64(1));
    return {builder_.CreateAdd(low, builder_.CreateURem(bits(), span))};
  }
  case RandomDraw::Seed:
    break;
  }
  SPIRJIT_INTERNAL_CHECK(false, "an unknown np.random draw");
  return {};
}

} // namespace spirjit::lower
