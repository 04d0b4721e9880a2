// What a user debugging a kernel asks for: the checks of boundscheck and
// debug, `assert`, and `print` through the device's printf.
//
// A failing check does not branch: it keeps the function's first failure
// in three private values (pend), which each return of the function hands
// to the debug record (flushPending, DebugRecord.h) in one rarely taken
// branch. So checks in a loop leave it vectorisable, and a work-item goes
// on after a failure with the failing index read as 0.
#include "compiler/lower/Lowering.h"

#include <llvm/IR/MDBuilder.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace spirjit::lower {

int Lowering::addDebugSite(DebugSite::Kind kind, const std::string &detail,
                           int axis) {
  SPIRJIT_INTERNAL_CHECK(options_.sites && current_,
                         "a debug check without a table of sites");
  DebugSite site;
  site.kind = kind;
  site.filename = filename();
  site.line = current_->line;
  site.detail = detail;
  site.axis = axis;
  options_.sites->push_back(site);
  return static_cast<int>(options_.sites->size()); // 0 means "no failure"
}

llvm::Function *Lowering::reportFunction() {
  const char *name = "spirjit.debug.report";
  if (llvm::Function *existing = module_->getFunction(name))
    return existing;
  llvm::Type *record = debugRecord_->getType();
  auto *type =
      llvm::FunctionType::get(builder_.getVoidTy(),
                              {record, builder_.getInt32Ty(),
                               builder_.getInt64Ty(), builder_.getInt64Ty()},
                              false);
  auto *report = llvm::Function::Create(type, llvm::Function::InternalLinkage,
                                        name, module_);
  report->setCallingConv(target_.functionCallingConvention());
  report->addFnAttr(llvm::Attribute::NoUnwind);
  // Off the hot path: the failing branch of a return is one call.
  report->addFnAttr(llvm::Attribute::Cold);
  report->addFnAttr(llvm::Attribute::NoInline);
  auto arg = report->arg_begin();
  llvm::Value *base = &*arg++, *site = &*arg++, *index = &*arg++;
  llvm::Value *extent = &*arg;
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", report));
  unsigned space = record->getPointerAddressSpace();
  auto field = [&](unsigned offset, llvm::Type *t) {
    return b.CreateBitCast(
        b.CreateConstInBoundsGEP1_32(b.getInt8Ty(), base, offset),
        llvm::PointerType::get(t, space));
  };
  // The first failure claims the record; the others leave it alone.
  auto ordering = llvm::AtomicOrdering::SequentiallyConsistent;
  llvm::Value *claimed = b.CreateExtractValue(
      b.CreateAtomicCmpXchg(field(DebugRecordLayout::site, b.getInt32Ty()),
                            b.getInt32(0), site, llvm::MaybeAlign(), ordering,
                            ordering),
      1);
  auto *write = llvm::BasicBlock::Create(context_, "claimed", report);
  auto *done = llvm::BasicBlock::Create(context_, "done", report);
  b.CreateCondBr(claimed, write, done);
  b.SetInsertPoint(write);
  b.CreateStore(index, field(DebugRecordLayout::index, b.getInt64Ty()));
  b.CreateStore(extent, field(DebugRecordLayout::extent, b.getInt64Ty()));
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return report;
}

llvm::Value *Lowering::pendingSlot(unsigned k) {
  if (!debugPending_) {
    // [site, index, extent] of this function's first failure, zero while
    // there is none: SROA makes registers of it.
    llvm::BasicBlock &entry = function_->getEntryBlock();
    allocaBuilder_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
    auto *type = llvm::ArrayType::get(builder_.getInt64Ty(), 3);
    debugPending_ = allocaBuilder_.CreateAlloca(type, nullptr, "debug.pending");
    allocaBuilder_.CreateStore(llvm::ConstantAggregateZero::get(type),
                               debugPending_);
  }
  return builder_.CreateConstInBoundsGEP2_32(
      llvm::ArrayType::get(builder_.getInt64Ty(), 3), debugPending_, 0, k);
}

void Lowering::pend(llvm::Value *failed, int site, llvm::Value *index,
                    llvm::Value *extent) {
  pend(failed, builder_.getInt64(site), index, extent);
}

void Lowering::pend(llvm::Value *failed, llvm::Value *site, llvm::Value *index,
                    llvm::Value *extent) {
  // Selects, not branches: a check in a loop must leave it vectorisable.
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::Value *siteSlot = pendingSlot(0);
  llvm::Value *old = builder_.CreateLoad(i64, siteSlot);
  llvm::Value *first = builder_.CreateAnd(
      failed, builder_.CreateICmpEQ(old, builder_.getInt64(0)));
  builder_.CreateStore(
      builder_.CreateSelect(first, builder_.CreateZExt(site, i64), old),
      siteSlot);
  llvm::Value *values[] = {index, extent};
  for (unsigned k = 1; k < 3; ++k) {
    llvm::Value *slot = pendingSlot(k);
    builder_.CreateStore(builder_.CreateSelect(first, values[k - 1],
                                               builder_.CreateLoad(i64, slot)),
                         slot);
  }
}

void Lowering::flushPending() {
  if (!debugPending_)
    return; // nothing checked on the way here
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::Value *site = builder_.CreateLoad(i64, pendingSlot(0));
  llvm::Value *index = builder_.CreateLoad(i64, pendingSlot(1));
  llvm::Value *extent = builder_.CreateLoad(i64, pendingSlot(2));
  auto *failure = llvm::BasicBlock::Create(context_, "debug.report", function_);
  auto *done = llvm::BasicBlock::Create(context_, "debug.done", function_);
  builder_
      .CreateCondBr(builder_.CreateICmpNE(site, builder_.getInt64(0)), failure,
                    done)
      ->setMetadata(llvm::LLVMContext::MD_prof,
                    llvm::MDBuilder(context_).createBranchWeights(1, 1 << 20));
  builder_.SetInsertPoint(failure);
  builder_
      .CreateCall(reportFunction(),
                  {debugRecord_,
                   builder_.CreateTrunc(site, builder_.getInt32Ty()), index,
                   extent})
      ->setCallingConv(target_.functionCallingConvention());
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
}

llvm::Value *Lowering::inBounds(llvm::Value *wrapped, llvm::Value *index,
                                llvm::Value *extent) {
  llvm::Type *i64 = builder_.getInt64Ty();
  llvm::FunctionCallee marker = module_->getOrInsertFunction(
      inBoundsMarker,
      llvm::FunctionType::get(builder_.getInt1Ty(),
                              {builder_.getInt1Ty(), i64, i64}, false));
  auto *declared = llvm::cast<llvm::Function>(marker.getCallee());
  // Free to move, merge and drop, as the comparison it stands for.
  declared->setDoesNotAccessMemory();
  declared->setDoesNotThrow();
  declared->setWillReturn();
  declared->addFnAttr(llvm::Attribute::Speculatable);
  return builder_.CreateCall(
      marker, {builder_.CreateICmpULT(wrapped, extent), index, extent});
}

std::string Lowering::describeArray(const Instruction *array,
                                    int &firstAxis) const {
  firstAxis = 0;
  while (array->opcode == Opcode::GetItem) {
    const Type *index = array->operands[1]->type;
    firstAxis += index->kind == TypeKind::Tuple
                     ? static_cast<int>(index->elements.size())
                     : 1;
    array = array->operands[0];
  }
  // A prange loop's kernel is the user's jit function to the user
  // ("f_parfor0" is f), and its captured temporaries ("v95") are arrays
  // in it.
  std::string function = typed_.function->name;
  size_t parfor = function.rfind("_parfor");
  bool outlined =
      parfor != std::string::npos && parfor + 7 < function.size() &&
      function.find_first_not_of("0123456789", parfor + 7) ==
          std::string::npos;
  if (outlined)
    function.erase(parfor);
  bool generated =
      outlined && array->name.size() > 1 && array->name[0] == 'v' &&
      array->name.find_first_not_of("0123456789", 1) == std::string::npos;
  if (array->opcode == Opcode::Arg && !generated)
    return "array parameter '" + array->name + "' of '" + function + "'";
  if (array->opcode == Opcode::Call) {
    const KernelApiFunction *api = findKernelApi(array->operands[0]->type);
    if (api && api->id == KernelApi::PrivateArray)
      return "a PrivateArray in '" + function + "'";
  }
  return "an array in '" + function + "'";
}

llvm::Value *Lowering::sinkFor(const Type *arrayType) {
  llvm::PointerType *type = pointerType(arrayType);
  if (arrayType->memorySpace == MemorySpace::Global)
    return builder_.CreateBitCast(
        builder_.CreateConstInBoundsGEP1_32(builder_.getInt8Ty(), debugRecord_,
                                            DebugRecordLayout::sink),
        type);
  if (arrayType->memorySpace != MemorySpace::Private)
    return nullptr; // local memory: index 0 stands in (see index())
  llvm::BasicBlock &entry = function_->getEntryBlock();
  allocaBuilder_.SetInsertPoint(&entry, entry.getFirstInsertionPt());
  llvm::Value *sink =
      allocaBuilder_.CreateAlloca(memoryType(arrayType->element));
  return sink->getType() == type ? sink : nullptr;
}

llvm::Value *
Lowering::guardedAccess(llvm::Value *failed,
                        const std::function<llvm::Value *()> &access) {
  if (!failed)
    return access();
  // A branch around the access: vectorisers make a masked access of it,
  // where a safe address chosen by a select would become a gather.
  llvm::BasicBlock *before = builder_.GetInsertBlock();
  auto *inside = llvm::BasicBlock::Create(context_, "check.inside", function_);
  auto *after = llvm::BasicBlock::Create(context_, "check.after", function_);
  builder_.CreateCondBr(failed, after, inside)
      ->setMetadata(llvm::LLVMContext::MD_prof,
                    llvm::MDBuilder(context_).createBranchWeights(1, 1 << 20));
  builder_.SetInsertPoint(inside);
  llvm::Value *result = access();
  builder_.CreateBr(after);
  builder_.SetInsertPoint(after);
  if (result->getType()->isVoidTy())
    return result;
  llvm::PHINode *merged = builder_.CreatePHI(result->getType(), 2);
  merged->addIncoming(result, inside);
  merged->addIncoming(llvm::Constant::getNullValue(result->getType()), before);
  return merged;
}

Lowered Lowering::lowerAssert(const Instruction &inst) {
  if (!options_.debug && !(isHost() && options_.hostAsserts))
    return {};
  std::string message =
      inst.operands.empty() ? "" : inst.operands[0]->constant.text;
  if (isHost()) {
    // Host code raises at once, through the call's error (HostCall.cpp).
    std::string text = filename() + ":" + std::to_string(inst.line) + ": " +
                       (message.empty() ? "assertion failed" : message);
    auto *i8ptr = builder_.getInt8PtrTy();
    llvm::FunctionCallee raise = hostHelper(
        "spirjit_host_assert", builder_.getInt32Ty(), {i8ptr, i8ptr});
    checkStatus(builder_.CreateCall(
        raise, {hostContext_, builder_.CreateGlobalStringPtr(text)}));
    return {};
  }
  pend(builder_.getTrue(), addDebugSite(DebugSite::Kind::Assertion, message),
       builder_.getInt64(0), builder_.getInt64(0));
  return {};
}

bool Lowering::isFailedAssert(const ir::Block *block) {
  // In a kernel, a failed check of an array statement in a prange body
  // (`ret fail`: Parfor.cpp) is one too.
  const Instruction *last = block->terminator();
  return last && last->opcode == Opcode::Return &&
         (last->name == "assert" || (last->name == "fail" && !isHost()));
}

Lowered Lowering::lowerKernelFail(const Instruction &inst) {
  if (!options_.debug)
    return {};
  // The report names file:line itself, and the kernel has no text for
  // the numbers the host's message would show.
  std::string message = inst.name;
  std::string where = filename() + ":" + std::to_string(inst.line) + ": ";
  if (message.compare(0, where.size(), where) == 0)
    message.erase(0, where.size());
  const std::string numbers = "an extent of {got} meets one of {expected}";
  size_t at = message.find(numbers);
  if (at != std::string::npos)
    message.replace(at, numbers.size(), "the extents differ");
  pend(builder_.getTrue(), addDebugSite(DebugSite::Kind::Assertion, message),
       builder_.getInt64(0), builder_.getInt64(0));
  return {};
}

namespace {

/// Text as a printf format prints it.
std::string escapeFormat(const std::string &text) {
  std::string out;
  for (char c : text)
    out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

/// Python's repr of a float known at compile time (float32: the shortest
/// text that gives the float32 back, as NumPy prints it).
std::string floatRepr(double value, bool single) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char text[64];
  if (value == std::floor(value) && std::fabs(value) < 1e16) {
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (single ? std::strtof(text, nullptr) == static_cast<float>(value)
               : std::strtod(text, nullptr) == value)
      break;
  }
  return text;
}

/// How one printed value may be formatted: each variant a format and the
/// arguments it takes; `choice` (i32) picks the variant at run time.
struct PrintedValue {
  std::vector<std::string> formats;
  std::vector<llvm::Value *> args;
  llvm::Value *choice = nullptr;
  /// Fewer variants of the same value, where there are any (doubles).
  std::vector<std::string> compactFormats;
  llvm::Value *compactChoice = nullptr;
};

} // namespace

Lowered Lowering::lowerPrint(const Instruction &inst) {
  // Keywords ride on the call (BuildPyIR): the last arguments.
  std::vector<std::string> keywords;
  for (size_t at = 0; !inst.name.empty() && at != std::string::npos;) {
    size_t comma = inst.name.find(',', at);
    keywords.push_back(inst.name.substr(at, comma - at));
    at = comma == std::string::npos ? comma : comma + 1;
  }
  size_t positional = inst.operands.size() - 1 - keywords.size();
  std::string sep = " ", end = "\n";
  for (size_t k = 0; k < keywords.size(); ++k)
    (keywords[k] == "sep" ? sep : end) =
        inst.operands[1 + positional + k]->constant.text;

  // Python's str() of each value. Floats print as Python's repr would
  // where printf can: an integral value below 1e16 as "%.1f" ("3.0");
  // a double as the fewest of 15, 16 or 17 digits that give it back, its
  // shortest text ("0.1", "1e-05", "0.3333333333333333"; 17 digits below
  // 1e-29 and above 1e37); a float32 that six digits give back as "%g",
  // otherwise "%.9g"; bools as their name.
  // 10^p for an integral double p: exact for 0 <= p <= 22 (every power a
  // double holds exactly), as a product of the exact powers 10^(2^i);
  // pow beyond, and 1 / 10^-p below 0.
  auto powerOfTen = [&](llvm::Value *p) {
    llvm::Type *f64 = builder_.getDoubleTy();
    llvm::Value *negative =
        builder_.CreateFCmpOLT(p, llvm::ConstantFP::get(f64, 0.0));
    llvm::Value *q = builder_.CreateSelect(negative, builder_.CreateFNeg(p), p);
    llvm::Value *capped = builder_.CreateSelect(
        builder_.CreateFCmpOLT(q, llvm::ConstantFP::get(f64, 31.0)), q,
        llvm::ConstantFP::get(f64, 31.0));
    llvm::Value *exact = Lowering::powerOfTen(
        builder_, f64,
        builder_.CreateFPToSI(capped, builder_.getInt32Ty()), 5);
    llvm::Value *far = target_.emitMathCall(
        builder_, "pow", {llvm::ConstantFP::get(f64, 10.0), q});
    llvm::Value *power = builder_.CreateSelect(
        builder_.CreateFCmpOLE(q, llvm::ConstantFP::get(f64, 22.0)), exact,
        far);
    return builder_.CreateSelect(
        negative,
        builder_.CreateFDiv(llvm::ConstantFP::get(f64, 1.0), power), power);
  };
  // Whether the `digits`-digit decimal of d (|d| = magnitude, of decimal
  // exponent `exponent`), N / 10^k with k = digits - 1 - exponent, gives
  // d back: it lies within half an ulp of d, |d * 10^k - N| < ulp / 2 *
  // 10^k. d * 10^k is taken exactly as hi + lo (fma), scaled by two exact
  // powers 10^min(|k|, 22) and 10^(|k| - 22), so for |k| up to 44; beyond,
  // no.
  auto fitsDigits = [&](llvm::Value *d, llvm::Value *magnitude,
                        llvm::Value *exponent, int digits) {
    llvm::Type *f64 = builder_.getDoubleTy();
    auto c = [&](double value) { return llvm::ConstantFP::get(f64, value); };
    auto math = [&](const char *name, std::vector<llvm::Value *> args) {
      return target_.emitMathCall(builder_, name, args);
    };
    auto fma = [&](llvm::Value *a, llvm::Value *b, llvm::Value *e) {
      return math("fma", {a, b, e});
    };
    llvm::Value *k = builder_.CreateFSub(c(digits - 1), exponent);
    llvm::Value *kAbs = math("fabs", {k});
    llvm::Value *over = builder_.CreateFSub(kAbs, c(22));
    llvm::Value *p1 = powerOfTen(builder_.CreateSelect(
        builder_.CreateFCmpOLT(kAbs, c(22)), kAbs, c(22)));
    llvm::Value *p2 = powerOfTen(builder_.CreateSelect(
        builder_.CreateFCmpOGT(over, c(0)), over, c(0)));
    // Up (k >= 0): d * p2 * p1.
    llvm::Value *h1 = builder_.CreateFMul(d, p2);
    llvm::Value *l1 = fma(d, p2, builder_.CreateFNeg(h1));
    llvm::Value *upHi = builder_.CreateFMul(h1, p1);
    llvm::Value *upLo = builder_.CreateFAdd(
        fma(h1, p1, builder_.CreateFNeg(upHi)), builder_.CreateFMul(l1, p1));
    // Down (k < 0): d / p1 / p2, each quotient's remainder exact.
    llvm::Value *q1 = builder_.CreateFDiv(d, p1);
    llvm::Value *r1 = fma(builder_.CreateFNeg(q1), p1, d);
    llvm::Value *downHi = builder_.CreateFDiv(q1, p2);
    llvm::Value *r2 = fma(builder_.CreateFNeg(downHi), p2, q1);
    llvm::Value *downLo = builder_.CreateFAdd(
        builder_.CreateFDiv(r2, p2),
        builder_.CreateFDiv(r1, builder_.CreateFMul(p1, p2)));
    llvm::Value *up = builder_.CreateFCmpOGE(k, c(0));
    llvm::Value *hi = builder_.CreateSelect(up, upHi, downHi);
    llvm::Value *lo = builder_.CreateSelect(up, upLo, downLo);
    llvm::Value *fraction = builder_.CreateFAdd(
        builder_.CreateFSub(hi, math("rint", {hi})), lo);
    llvm::Value *error = math(
        "fabs", {builder_.CreateFSub(fraction, math("rint", {fraction}))});
    llvm::Type *i64 = builder_.getInt64Ty();
    llvm::Value *ulp = builder_.CreateFSub(
        builder_.CreateBitCast(
            builder_.CreateAdd(builder_.CreateBitCast(magnitude, i64),
                               builder_.getInt64(1)),
            f64),
        magnitude);
    llvm::Value *scale = builder_.CreateFMul(p1, p2);
    llvm::Value *allowed = builder_.CreateFMul(
        builder_.CreateFMul(ulp, c(0.5)),
        builder_.CreateSelect(up, scale, builder_.CreateFDiv(c(1.0), scale)));
    return builder_.CreateAnd(builder_.CreateFCmpOLE(kAbs, c(44)),
                              builder_.CreateFCmpOLT(error, allowed));
  };
  std::vector<std::string> pieces; // text between the values
  std::vector<PrintedValue> values;
  std::string text;
  // One number: a printf variant per way Python may write it.
  auto printScalar = [&](llvm::Value *v, const Type *t) {
    pieces.push_back(text);
    text.clear();
    PrintedValue printed;
    auto floatVariants = [&](llvm::Value *x, bool single) {
      if (auto *known = llvm::dyn_cast<llvm::ConstantFP>(x)) {
        printed.formats = {escapeFormat(
            floatRepr(known->getValueAPF().convertToDouble(), single))};
        return;
      }
      llvm::Value *d = builder_.CreateFPExt(x, builder_.getDoubleTy());
      llvm::Type *f64 = builder_.getDoubleTy();
      auto c = [&](double value) { return llvm::ConstantFP::get(f64, value); };
      auto math = [&](const char *name, std::vector<llvm::Value *> args) {
        return target_.emitMathCall(builder_, name, args);
      };
      llvm::Value *magnitude = math("fabs", {d});
      llvm::Value *integral =
          builder_.CreateAnd(builder_.CreateFCmpOEQ(math("floor", {d}), d),
                             builder_.CreateFCmpOLT(magnitude, c(1e16)));
      llvm::Value *exponent = math("floor", {math("log10", {magnitude})});
      if (!single) {
        // Python's repr is the shortest text that gives the double back.
        // "%.15lg" or "%.16lg" is it (trailing zeros dropped, the same
        // switch to an exponent) where 15 or 16 digits give the value
        // back; otherwise 17 digits do. (The "l" makes PoCL print the
        // double rather than a float of it.) log10 may land on the wrong
        // side of a power of ten: corrected both ways.
        exponent = builder_.CreateSelect(
            builder_.CreateFCmpOLT(magnitude, powerOfTen(exponent)),
            builder_.CreateFSub(exponent, c(1)), exponent);
        exponent = builder_.CreateSelect(
            builder_.CreateFCmpOGE(
                magnitude,
                powerOfTen(builder_.CreateFAdd(exponent, c(1)))),
            builder_.CreateFAdd(exponent, c(1)), exponent);
        auto fits15 = fitsDigits(d, magnitude, exponent, 15);
        auto fits16 = fitsDigits(d, magnitude, exponent, 16);
        auto pick = [&](llvm::Value *a, int ifA, llvm::Value *b, int ifB,
                        int otherwise) {
          return builder_.CreateSelect(
              integral, builder_.getInt32(0),
              builder_.CreateSelect(
                  a, builder_.getInt32(ifA),
                  builder_.CreateSelect(b, builder_.getInt32(ifB),
                                        builder_.getInt32(otherwise))));
        };
        printed.formats = {"%.1lf", "%.15lg", "%.16lg", "%.17lg"};
        printed.args = {d};
        printed.choice = pick(fits15, 1, fits16, 2, 3);
        // Where a line has too many floats for four variants each: 16
        // digits in place of 15 (the same value, a digit longer).
        printed.compactFormats = {"%.1lf", "%.16lg", "%.17lg"};
        printed.compactChoice = pick(fits16, 1, fits16, 1, 2);
        return;
      }
      llvm::Value *scale =
          math("pow", {c(10), builder_.CreateFSub(c(5), exponent)});
      llvm::Value *rounded = builder_.CreateFDiv(
          math("rint", {builder_.CreateFMul(d, scale)}), scale);
      llvm::Value *shortEnough = builder_.CreateFCmpOEQ(
          builder_.CreateFPTrunc(rounded, x->getType()), x);
      printed.formats = {"%.1f", "%g", "%.9g"};
      printed.args = {d};
      printed.choice = builder_.CreateSelect(
          integral, builder_.getInt32(0),
          builder_.CreateSelect(shortEnough, builder_.getInt32(1),
                                builder_.getInt32(2)));
    };
    switch (t->kind) {
    case TypeKind::Bool:
      printed.formats = {"False", "True"};
      if (auto *known = llvm::dyn_cast<llvm::ConstantInt>(v))
        printed.formats = {known->isZero() ? "False" : "True"};
      else
        printed.choice = builder_.CreateZExt(v, builder_.getInt32Ty());
      break;
    case TypeKind::Int:
      printed.formats = {t->isSigned ? "%ld" : "%lu"};
      printed.args = {t->isSigned
                          ? builder_.CreateSExt(v, builder_.getInt64Ty())
                          : builder_.CreateZExt(v, builder_.getInt64Ty())};
      break;
    case TypeKind::Float:
      floatVariants(v, t->bits == 32);
      break;
    case TypeKind::Complex: {
      // "(re+imj)", each part with all its digits.
      const char *part = t->bits == 32 ? "%.9g" : "%.17g";
      printed.formats = {std::string("(") + part + "%+" + (part + 1) + "j)"};
      for (unsigned k = 0; k < 2; ++k)
        printed.args.push_back(builder_.CreateFPExt(
            builder_.CreateExtractValue(v, k), builder_.getDoubleTy()));
      break;
    }
    default:
      SPIRJIT_INTERNAL_CHECK(false, "print of a '" + t->str() + "'");
    }
    values.push_back(printed);
  };
  for (size_t i = 1; i <= positional; ++i) {
    if (i > 1)
      text += escapeFormat(sep);
    const Instruction *operand = inst.operands[i];
    if (operand->opcode == Opcode::Const &&
        operand->constant.kind == ConstValue::Kind::Str) {
      text += escapeFormat(operand->constant.text);
      continue;
    }
    const Type *t = types::materialize(operand->type);
    if (t->kind != TypeKind::Tuple) {
      printScalar(scalarOf(operand, t), t);
      continue;
    }
    // A tuple of numbers (a.shape) as Python writes it: "(3,)", "(3, 4)";
    // a namedtuple as its repr does, "Point(x=1.0, y=2.0)".
    const Lowered &tuple = values_.at(operand);
    text += t->isNamedTuple()
                ? escapeFormat(types::namedTupleClassName(t)) + "("
                : "(";
    for (size_t k = 0; k < t->elements.size(); ++k) {
      const Type *e = types::materialize(t->elements[k]);
      text += k ? ", " : "";
      if (t->isNamedTuple())
        text += escapeFormat(t->fields[k]) + "=";
      printScalar(
          convert(tuple.elements[k].scalar, operand->type->elements[k], e), e);
    }
    text += t->elements.size() == 1 && !t->isNamedTuple() ? ",)" : ")";
  }
  pieces.push_back(text + escapeFormat(end));

  // One printf per combination of variants, so each line is one printf
  // (lines of different work-items do not interleave).
  auto countCombinations = [&] {
    size_t count = 1;
    for (const PrintedValue &value : values)
      count *= value.formats.size();
    return count;
  };
  size_t combinations = countCombinations();
  if (combinations > 256) {
    for (PrintedValue &value : values)
      if (value.compactChoice) {
        value.formats = value.compactFormats;
        value.choice = value.compactChoice;
      }
    combinations = countCombinations();
  }
  if (combinations > 256)
    unsupported(inst, "print of more than a few floats and bools at once in "
                      "a kernel; print them in several calls");
  llvm::Value *selector = builder_.getInt32(0);
  size_t radix = 1;
  for (const PrintedValue &value : values) {
    if (value.choice)
      selector = builder_.CreateAdd(
          selector, builder_.CreateMul(value.choice, builder_.getInt32(radix)));
    radix *= value.formats.size();
  }
  auto emit = [&](size_t combination) {
    std::string format = pieces[0];
    std::vector<llvm::Value *> args;
    size_t rest = combination;
    for (size_t k = 0; k < values.size(); ++k) {
      const PrintedValue &value = values[k];
      format += value.formats[rest % value.formats.size()] + pieces[k + 1];
      rest /= value.formats.size();
      args.insert(args.end(), value.args.begin(), value.args.end());
    }
    if (isHost()) {
      // The host runtime writes the line where Python's print would.
      std::vector<llvm::Value *> call = {
          hostContext_, builder_.CreateGlobalStringPtr(format, "print.format")};
      call.insert(call.end(), args.begin(), args.end());
      auto *i8ptr = builder_.getInt8PtrTy();
      llvm::FunctionCallee print = module_->getOrInsertFunction(
          "spirjit_host_print",
          llvm::FunctionType::get(builder_.getInt32Ty(), {i8ptr, i8ptr}, true));
      checkStatus(builder_.CreateCall(print, call));
    } else if (!device().emitPrintf(builder_, format, args)) {
      unsupported(inst, "print on " + target_.name());
    }
  };
  if (combinations == 1) {
    emit(0);
    return {};
  }
  auto *done = llvm::BasicBlock::Create(context_, "print.done", function_);
  llvm::SwitchInst *choose = builder_.CreateSwitch(
      selector, done, static_cast<unsigned>(combinations));
  for (size_t k = 0; k < combinations; ++k) {
    auto *bb = llvm::BasicBlock::Create(context_, "print", function_);
    choose->addCase(builder_.getInt32(static_cast<uint32_t>(k)), bb);
    builder_.SetInsertPoint(bb);
    emit(k);
    builder_.CreateBr(done);
  }
  builder_.SetInsertPoint(done);
  return {};
}

} // namespace spirjit::lower
