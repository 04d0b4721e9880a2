#include "compiler/SPIRVLegalize.h"

#include "frontend/Diagnostics.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/Local.h>

#include <vector>

namespace spirjit {

/// The SPIR-V translator of LLVM 15 cannot translate `freeze`, which the
/// optimiser introduces around divisions. Our lowering never produces
/// poison that reaches a freeze (divisors are made safe first), so each
/// freeze is its operand.
void removeFreezes(llvm::Module &module) {
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (auto it = block.begin(); it != block.end();) {
        llvm::Instruction &inst = *it++;
        if (auto *freeze = llvm::dyn_cast<llvm::FreezeInst>(&inst)) {
          freeze->replaceAllUsesWith(freeze->getOperand(0));
          freeze->eraseFromParent();
        }
      }
}

/// llvm.abs becomes OpenCL's abs(), whose result is unsigned: device
/// compilers may then assume it non-negative and turn a later sign
/// extension of abs(INT_MIN) into a zero extension. NumPy wraps abs(INT_MIN)
/// to INT_MIN, so keep the operation as plain IR.
void expandIntegerAbs(llvm::Module &module) {
  std::vector<llvm::IntrinsicInst *> calls;
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
          if (call->getIntrinsicID() == llvm::Intrinsic::abs)
            calls.push_back(call);
  for (llvm::IntrinsicInst *call : calls) {
    llvm::IRBuilder<> builder(call);
    llvm::Value *x = call->getArgOperand(0);
    llvm::Value *zero = llvm::Constant::getNullValue(x->getType());
    llvm::Value *result = builder.CreateSelect(builder.CreateICmpSLT(x, zero),
                                               builder.CreateSub(zero, x), x);
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
}

namespace {

/// Whether `id` is a vector reduction expandVectorReductions folds.
bool foldsLanes(llvm::Intrinsic::ID id) {
  namespace I = llvm::Intrinsic;
  switch (id) {
  case I::vector_reduce_add: case I::vector_reduce_mul:
  case I::vector_reduce_and: case I::vector_reduce_or:
  case I::vector_reduce_xor: case I::vector_reduce_smax:
  case I::vector_reduce_smin: case I::vector_reduce_umax:
  case I::vector_reduce_umin: case I::vector_reduce_fadd:
  case I::vector_reduce_fmul:
    return true;
  default:
    return false;
  }
}

/// Two lanes of the vector reduction `id` folded (foldsLanes(id)).
llvm::Value *foldLanes(llvm::IRBuilder<> &builder, llvm::Intrinsic::ID id,
                       llvm::Value *a, llvm::Value *b) {
  namespace I = llvm::Intrinsic;
  switch (id) {
  case I::vector_reduce_add:
    return builder.CreateAdd(a, b);
  case I::vector_reduce_mul:
    return builder.CreateMul(a, b);
  case I::vector_reduce_and:
    return builder.CreateAnd(a, b);
  case I::vector_reduce_or:
    return builder.CreateOr(a, b);
  case I::vector_reduce_xor:
    return builder.CreateXor(a, b);
  case I::vector_reduce_smax:
    return builder.CreateSelect(builder.CreateICmpSGT(a, b), a, b);
  case I::vector_reduce_smin:
    return builder.CreateSelect(builder.CreateICmpSLT(a, b), a, b);
  case I::vector_reduce_umax:
    return builder.CreateSelect(builder.CreateICmpUGT(a, b), a, b);
  case I::vector_reduce_umin:
    return builder.CreateSelect(builder.CreateICmpULT(a, b), a, b);
  case I::vector_reduce_fadd:
    return builder.CreateFAdd(a, b);
  case I::vector_reduce_fmul:
    return builder.CreateFMul(a, b);
  default:
    SPIRJIT_INTERNAL_CHECK(false, "no lane fold for this vector reduction");
    return nullptr;
  }
}

} // namespace

/// LLVM's loop vectoriser folds a reduction's lanes with
/// llvm.vector.reduce.* (an int16 dot product's loop) and instcombine
/// tests a vector of bools with a bitcast to an integer (`any` of <16 x
/// i1>): the SPIR-V translator of LLVM 15 aborts the process on the first
/// and SPIR-V has no bitcast of bools. Each becomes its lanes, extracted
/// and folded in order (a float fold starts from its start operand, as
/// the ordered intrinsic does), or shifted into place and or-ed.
void expandVectorReductions(llvm::Module &module) {
  std::vector<llvm::Instruction *> rewritten;
  for (llvm::Function &function : module)
    for (llvm::Instruction &inst : llvm::instructions(function)) {
      if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst)) {
        llvm::Intrinsic::ID id = call->getIntrinsicID();
        if (!foldsLanes(id))
          continue;
        bool floating = id == llvm::Intrinsic::vector_reduce_fadd ||
                        id == llvm::Intrinsic::vector_reduce_fmul;
        llvm::Value *vector = call->getArgOperand(floating ? 1 : 0);
        auto *type = llvm::cast<llvm::FixedVectorType>(vector->getType());
        llvm::IRBuilder<> builder(call);
        builder.setFastMathFlags(call->getFastMathFlags());
        llvm::Value *result = floating ? call->getArgOperand(0) : nullptr;
        for (unsigned k = 0; k < type->getNumElements(); ++k) {
          llvm::Value *lane = builder.CreateExtractElement(vector, k);
          result = result ? foldLanes(builder, id, result, lane) : lane;
        }
        call->replaceAllUsesWith(result);
        rewritten.push_back(call);
      } else if (auto *cast = llvm::dyn_cast<llvm::BitCastInst>(&inst)) {
        auto *type = llvm::dyn_cast<llvm::FixedVectorType>(cast->getSrcTy());
        if (!type || !type->getElementType()->isIntegerTy(1) ||
            !cast->getDestTy()->isIntegerTy())
          continue;
        llvm::IRBuilder<> builder(cast);
        llvm::Type *integer = cast->getDestTy();
        llvm::Value *result = nullptr;
        for (unsigned k = 0; k < type->getNumElements(); ++k) {
          llvm::Value *lane = builder.CreateZExt(
              builder.CreateExtractElement(cast->getOperand(0), k), integer);
          if (k)
            lane = builder.CreateShl(lane, k);
          result = result ? builder.CreateOr(result, lane) : lane;
        }
        cast->replaceAllUsesWith(result);
        rewritten.push_back(cast);
      }
    }
  for (llvm::Instruction *inst : rewritten)
    inst->eraseFromParent();
}

/// A phi of a complex number (a struct of two scalars) becomes one phi per
/// field. Intel's CPU runtime crashes in its x86 instruction selection on
/// a struct phi carried around a loop in a kernel that also has a barrier
/// loop (a complex tree reduction), and scalars are what its vectoriser
/// wants anyway. Each incoming field is the scalar inserted into the struct
/// where there is one (FindInsertedValue), else an extractvalue at the end
/// of the incoming block; extractvalues of the phi become the field's phi,
/// and any other use gets the struct rebuilt after the phis.
void splitAggregatePhis(llvm::Module &module) {
  std::vector<llvm::PHINode *> phis;
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (llvm::PHINode &phi : block.phis())
        if (auto *type = llvm::dyn_cast<llvm::StructType>(phi.getType()))
          if (llvm::all_of(type->elements(), [](llvm::Type *t) {
                return t->isSingleValueType();
              }))
            phis.push_back(&phi);
  for (llvm::PHINode *phi : phis) {
    auto *type = llvm::cast<llvm::StructType>(phi->getType());
    std::vector<llvm::PHINode *> fields;
    for (unsigned i = 0; i < type->getNumElements(); ++i) {
      auto *field = llvm::PHINode::Create(type->getElementType(i),
                                          phi->getNumIncomingValues(),
                                          phi->getName() + ".f", phi);
      // One value per incoming block, even where a block comes twice.
      llvm::DenseMap<llvm::BasicBlock *, llvm::Value *> fromBlock;
      for (unsigned e = 0; e < phi->getNumIncomingValues(); ++e) {
        llvm::BasicBlock *from = phi->getIncomingBlock(e);
        llvm::Value *&value = fromBlock[from];
        if (!value) {
          llvm::Value *incoming = phi->getIncomingValue(e);
          value = llvm::FindInsertedValue(incoming, {i});
          if (!value)
            value = llvm::ExtractValueInst::Create(incoming, {i}, "",
                                                   from->getTerminator());
        }
        field->addIncoming(value, from);
      }
      fields.push_back(field);
    }
    for (llvm::Use &use : llvm::make_early_inc_range(phi->uses()))
      if (auto *extract = llvm::dyn_cast<llvm::ExtractValueInst>(use.getUser()))
        if (extract->getNumIndices() == 1) {
          extract->replaceAllUsesWith(fields[extract->getIndices()[0]]);
          extract->eraseFromParent();
        }
    if (!phi->use_empty()) {
      llvm::IRBuilder<> builder(phi->getParent(),
                                phi->getParent()->getFirstInsertionPt());
      llvm::Value *whole = llvm::UndefValue::get(type);
      for (unsigned i = 0; i < fields.size(); ++i)
        whole = builder.CreateInsertValue(whole, fields[i], i);
      phi->replaceAllUsesWith(whole);
    }
    llvm::SmallVector<llvm::WeakTrackingVH, 4> incoming(
        phi->incoming_values().begin(), phi->incoming_values().end());
    phi->eraseFromParent();
    // What only the old phi used (the structs built for it) and the fields
    // nothing reads go.
    for (llvm::PHINode *field : fields)
      if (field->use_empty())
        llvm::RecursivelyDeleteDeadPHINode(field);
    llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(incoming);
  }
}

/// SPIR-V 1.0's OpSelect takes scalars and vectors only; the optimiser may
/// select between two complex numbers (a struct). Select each field.
void splitAggregateSelects(llvm::Module &module) {
  std::vector<llvm::SelectInst *> selects;
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &inst : block)
        if (auto *select = llvm::dyn_cast<llvm::SelectInst>(&inst))
          if (select->getType()->isStructTy())
            selects.push_back(select);
  for (llvm::SelectInst *select : selects) {
    llvm::IRBuilder<> builder(select);
    auto *type = llvm::cast<llvm::StructType>(select->getType());
    llvm::Value *result = llvm::UndefValue::get(type);
    for (unsigned i = 0; i < type->getNumElements(); ++i)
      result = builder.CreateInsertValue(
          result,
          builder.CreateSelect(
              select->getCondition(),
              builder.CreateExtractValue(select->getTrueValue(), i),
              builder.CreateExtractValue(select->getFalseValue(), i)),
          i);
    select->replaceAllUsesWith(result);
    select->eraseFromParent();
  }
}
void splatSelectConditions(llvm::Module &module) {
  std::vector<llvm::SelectInst *> selects;
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &inst : block)
        if (auto *select = llvm::dyn_cast<llvm::SelectInst>(&inst))
          if (select->getType()->isVectorTy() &&
              !select->getCondition()->getType()->isVectorTy())
            selects.push_back(select);
  for (llvm::SelectInst *select : selects) {
    llvm::IRBuilder<> builder(select);
    auto *type = llvm::cast<llvm::FixedVectorType>(select->getType());
    llvm::Value *lanes = builder.CreateVectorSplat(type->getNumElements(),
                                                   select->getCondition());
    select->setCondition(lanes);
  }
}

namespace {

/// The integer widths SPIR-V has: bool and 8, 16, 32 and 64 bits.
bool isSPIRVWidth(unsigned bits) {
  return bits == 1 || bits == 8 || bits == 16 || bits == 32 || bits == 64;
}

/// The width of `type` when it is an integer SPIR-V lacks, else 0.
unsigned illegalWidth(llvm::Type *type) {
  if (auto *vector = llvm::dyn_cast<llvm::VectorType>(type)) {
    SPIRJIT_INTERNAL_CHECK(isSPIRVWidth(vector->getScalarSizeInBits()) ||
                               !vector->getElementType()->isIntegerTy(),
                           "cannot legalise a vector of i" +
                               std::to_string(vector->getScalarSizeInBits()));
    return 0;
  }
  auto *integer = llvm::dyn_cast<llvm::IntegerType>(type);
  if (!integer || isSPIRVWidth(integer->getBitWidth()))
    return 0;
  SPIRJIT_INTERNAL_CHECK(integer->getBitWidth() < 64,
                         "cannot legalise an i" +
                             std::to_string(integer->getBitWidth()) +
                             " value: wider than 64 bits");
  return integer->getBitWidth();
}

/// The smallest SPIR-V width that holds `bits`.
unsigned promotedWidth(unsigned bits) {
  unsigned width = 8;
  while (width < bits)
    width *= 2;
  return width;
}

bool involvesIllegalWidth(const llvm::Instruction &inst) {
  if (illegalWidth(inst.getType()))
    return true;
  for (const llvm::Use &operand : inst.operands())
    if (illegalWidth(operand->getType()))
      return true;
  return false;
}

/// Rewrites one function's illegal-width integers. Each iN value (N not a
/// SPIR-V width) gets a twin of the next SPIR-V width W holding it
/// zero-extended: the upper W-N bits are always zero. Operations that could
/// set them (add, sub, mul, shl, signed division and shifts) mask their
/// result; those that read the sign (signed compares and divisions, ashr,
/// sext, smin/smax) sign-extend their operands from bit N-1 first. Users of
/// legal type (icmp, trunc, zext, sext, switch, store, gep) read the twin.
class IntegerPromotion {
public:
  explicit IntegerPromotion(llvm::Function &function) : function_(function) {}

  void run() {
    llvm::removeUnreachableBlocks(function_);
    llvm::ReversePostOrderTraversal<llvm::Function *> order(&function_);
    // Reverse post-order visits each definition before its uses, phis'
    // incoming values apart: those are filled in once every twin exists.
    for (llvm::BasicBlock *block : order)
      for (llvm::Instruction &inst : *block)
        if (involvesIllegalWidth(inst))
          rewrite(inst);
    for (auto [old, twin] : phis_)
      for (unsigned i = 0; i < old->getNumIncomingValues(); ++i)
        twin->addIncoming(promoted(old->getIncomingValue(i)),
                          old->getIncomingBlock(i));
    for (llvm::Instruction *inst : dead_)
      inst->dropAllReferences();
    for (llvm::Instruction *inst : dead_) {
      SPIRJIT_INTERNAL_CHECK(inst->use_empty(),
                             "a rewritten integer still has users");
      inst->eraseFromParent();
    }
  }

private:
  llvm::IntegerType *wideType(unsigned bits) {
    return llvm::IntegerType::get(function_.getContext(), promotedWidth(bits));
  }

  /// The zero-extended twin of `value`, an iN value with N illegal.
  llvm::Value *promoted(llvm::Value *value) {
    unsigned bits = illegalWidth(value->getType());
    llvm::IntegerType *wide = wideType(bits);
    if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(value))
      return llvm::ConstantInt::get(
          wide, constant->getValue().zext(wide->getBitWidth()));
    // Any value refines undef; zero keeps the upper bits clear.
    if (llvm::isa<llvm::UndefValue>(value))
      return llvm::ConstantInt::get(wide, 0);
    auto found = twins_.find(value);
    SPIRJIT_INTERNAL_CHECK(found != twins_.end(),
                           "cannot legalise an i" + std::to_string(bits) +
                               " value that is not an instruction's result");
    return found->second;
  }

  /// `value` (iN, N illegal) sign-extended to its twin's width.
  llvm::Value *signExtended(llvm::IRBuilder<> &builder, llvm::Value *value) {
    unsigned bits = illegalWidth(value->getType());
    llvm::IntegerType *wide = wideType(bits);
    if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(value))
      return llvm::ConstantInt::get(
          wide, constant->getValue().sext(wide->getBitWidth()));
    unsigned shift = wide->getBitWidth() - bits;
    return builder.CreateAShr(builder.CreateShl(promoted(value), shift), shift);
  }

  /// Clears the bits of `wide` above the low `bits`.
  llvm::Value *mask(llvm::IRBuilder<> &builder, llvm::Value *wide,
                    unsigned bits) {
    unsigned width = wide->getType()->getIntegerBitWidth();
    return builder.CreateAnd(wide, llvm::APInt::getLowBitsSet(width, bits));
  }

  /// The value `operand` of any width as an iW value, W = `width`:
  /// zero-extended or truncated, sign-extended when `isSigned`.
  llvm::Value *resized(llvm::IRBuilder<> &builder, llvm::Value *operand,
                       unsigned width, bool isSigned) {
    llvm::Type *type = builder.getIntNTy(width);
    if (!illegalWidth(operand->getType()))
      return isSigned ? builder.CreateSExtOrTrunc(operand, type)
                      : builder.CreateZExtOrTrunc(operand, type);
    llvm::Value *twin =
        isSigned ? signExtended(builder, operand) : promoted(operand);
    return isSigned ? builder.CreateSExtOrTrunc(twin, type)
                    : builder.CreateZExtOrTrunc(twin, type);
  }

  /// Records `replacement` for `inst`: as its twin when `inst` has an
  /// illegal type, else in place of it.
  void replace(llvm::Instruction &inst, llvm::Value *replacement) {
    // Dumps keep reading as before; an existing value keeps its own name.
    if (llvm::isa<llvm::Instruction>(replacement) && !replacement->hasName())
      replacement->takeName(&inst);
    if (illegalWidth(inst.getType()))
      twins_[&inst] = replacement;
    else
      inst.replaceAllUsesWith(replacement);
    dead_.push_back(&inst);
  }

  void rewrite(llvm::Instruction &inst) {
    llvm::IRBuilder<> builder(&inst);
    unsigned bits = illegalWidth(inst.getType());
    if (auto *binary = llvm::dyn_cast<llvm::BinaryOperator>(&inst)) {
      llvm::Value *lhs = binary->getOperand(0);
      llvm::Value *rhs = binary->getOperand(1);
      switch (binary->getOpcode()) {
      case llvm::Instruction::Add:
      case llvm::Instruction::Sub:
      case llvm::Instruction::Mul:
      case llvm::Instruction::Shl:
        return replace(inst,
                       mask(builder,
                            builder.CreateBinOp(binary->getOpcode(),
                                                promoted(lhs), promoted(rhs)),
                            bits));
      case llvm::Instruction::And:
      case llvm::Instruction::Or:
      case llvm::Instruction::Xor:
      case llvm::Instruction::UDiv:
      case llvm::Instruction::URem:
      case llvm::Instruction::LShr:
        return replace(inst, builder.CreateBinOp(binary->getOpcode(),
                                                 promoted(lhs), promoted(rhs)));
      case llvm::Instruction::SDiv:
      case llvm::Instruction::SRem:
        return replace(inst,
                       mask(builder,
                            builder.CreateBinOp(binary->getOpcode(),
                                                signExtended(builder, lhs),
                                                signExtended(builder, rhs)),
                            bits));
      case llvm::Instruction::AShr:
        return replace(inst, mask(builder,
                                  builder.CreateAShr(signExtended(builder, lhs),
                                                     promoted(rhs)),
                                  bits));
      default:
        break;
      }
    } else if (auto *compare = llvm::dyn_cast<llvm::ICmpInst>(&inst)) {
      bool isSigned = compare->isSigned();
      auto operand = [&](llvm::Value *value) {
        return isSigned ? signExtended(builder, value) : promoted(value);
      };
      return replace(inst, builder.CreateICmp(compare->getPredicate(),
                                              operand(compare->getOperand(0)),
                                              operand(compare->getOperand(1))));
    } else if (auto *select = llvm::dyn_cast<llvm::SelectInst>(&inst)) {
      return replace(inst,
                     builder.CreateSelect(select->getCondition(),
                                          promoted(select->getTrueValue()),
                                          promoted(select->getFalseValue())));
    } else if (auto *phi = llvm::dyn_cast<llvm::PHINode>(&inst)) {
      llvm::PHINode *twin =
          builder.CreatePHI(wideType(bits), phi->getNumIncomingValues());
      phis_.emplace_back(phi, twin);
      return replace(inst, twin);
    } else if (auto *switchInst = llvm::dyn_cast<llvm::SwitchInst>(&inst)) {
      auto *twin = builder.CreateSwitch(promoted(switchInst->getCondition()),
                                        switchInst->getDefaultDest(),
                                        switchInst->getNumCases());
      for (auto &kase : switchInst->cases())
        twin->addCase(
            llvm::cast<llvm::ConstantInt>(promoted(kase.getCaseValue())),
            kase.getCaseSuccessor());
      return replace(inst, twin);
    } else if (llvm::isa<llvm::TruncInst>(inst) ||
               llvm::isa<llvm::ZExtInst>(inst) ||
               llvm::isa<llvm::SExtInst>(inst)) {
      bool isSigned = llvm::isa<llvm::SExtInst>(inst);
      llvm::Value *source = inst.getOperand(0);
      if (!bits)
        return replace(inst,
                       resized(builder, source,
                               inst.getType()->getIntegerBitWidth(), isSigned));
      return replace(
          inst,
          mask(builder, resized(builder, source, promotedWidth(bits), isSigned),
               bits));
    } else if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst)) {
      llvm::Intrinsic::ID id = call->getIntrinsicID();
      bool isSigned =
          id == llvm::Intrinsic::smin || id == llvm::Intrinsic::smax;
      if (bits && (isSigned || id == llvm::Intrinsic::umin ||
                   id == llvm::Intrinsic::umax)) {
        auto operand = [&](llvm::Value *value) {
          return isSigned ? signExtended(builder, value) : promoted(value);
        };
        llvm::Value *result =
            builder.CreateBinaryIntrinsic(id, operand(call->getArgOperand(0)),
                                          operand(call->getArgOperand(1)));
        return replace(inst, isSigned ? mask(builder, result, bits) : result);
      }
      if (bits && (id == llvm::Intrinsic::bitreverse ||
                   id == llvm::Intrinsic::ctpop)) {
        // (LLVM makes a bitreverse of a narrow index from arithmetic on
        // constant extents, a[i % 2, i // 2 % 2] of a frozen 2x2 array.)
        llvm::Value *x = mask(builder, promoted(call->getArgOperand(0)), bits);
        if (id == llvm::Intrinsic::ctpop)
          return replace(inst, builder.CreateUnaryIntrinsic(id, x));
        // OpBitReverse is a Shader capability, which OpenCL has not: the
        // bits one by one (the widths here are a few bits).
        llvm::Value *result = llvm::ConstantInt::get(x->getType(), 0);
        for (unsigned k = 0; k < bits; ++k) {
          llvm::Value *bit = builder.CreateAnd(builder.CreateLShr(x, k), 1);
          result = builder.CreateOr(result,
                                    builder.CreateShl(bit, bits - 1 - k));
        }
        return replace(inst, result);
      }
    } else if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst)) {
      // Indices are signed and taken at the pointer's index width.
      for (llvm::Use &index : gep->indices())
        if (illegalWidth(index->getType()))
          index.set(resized(builder, index.get(), 64, true));
      return;
    } else if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
      llvm::Type *wide = wideType(bits);
      checkSameStoreSize(inst.getType(), wide);
      llvm::Value *pointer = builder.CreatePointerCast(
          load->getPointerOperand(),
          wide->getPointerTo(load->getPointerAddressSpace()));
      llvm::LoadInst *twin =
          builder.CreateAlignedLoad(wide, pointer, load->getAlign());
      twin->setVolatile(load->isVolatile());
      return replace(inst, mask(builder, twin, bits));
    } else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
      llvm::Value *value = store->getValueOperand();
      unsigned valueBits = illegalWidth(value->getType());
      if (valueBits) {
        llvm::Type *wide = wideType(valueBits);
        checkSameStoreSize(value->getType(), wide);
        llvm::Value *pointer = builder.CreatePointerCast(
            store->getPointerOperand(),
            wide->getPointerTo(store->getPointerAddressSpace()));
        llvm::StoreInst *twin = builder.CreateAlignedStore(
            promoted(value), pointer, store->getAlign());
        twin->setVolatile(store->isVolatile());
        return replace(inst, twin);
      }
    }
    SPIRJIT_INTERNAL_CHECK(false, std::string("cannot legalise the integer "
                                              "widths of a ") +
                                      inst.getOpcodeName() + " in " +
                                      function_.getName().str());
  }

  /// A load or store of the twin must touch the same bytes.
  void checkSameStoreSize(llvm::Type *narrow, llvm::Type *wide) {
    const llvm::DataLayout &layout = function_.getParent()->getDataLayout();
    SPIRJIT_INTERNAL_CHECK(layout.getTypeStoreSize(narrow) ==
                               layout.getTypeStoreSize(wide),
                           "cannot legalise a memory access of an i" +
                               std::to_string(narrow->getIntegerBitWidth()));
  }

  llvm::Function &function_;
  llvm::DenseMap<llvm::Value *, llvm::Value *> twins_;
  std::vector<std::pair<llvm::PHINode *, llvm::PHINode *>> phis_;
  std::vector<llvm::Instruction *> dead_;
};

} // namespace

/// LLVM's optimiser narrows integers to the bits they can hold (work-item
/// ids, known below 2^62, become i62 before a compare or a switch); SPIR-V
/// has widths 8, 16, 32 and 64 only. Promoting after the optimiser, rather
/// than keeping it from narrowing, holds whatever pass narrows.
void promoteIllegalIntegers(llvm::Module &module) {
  for (llvm::Function &function : module) {
    bool needed = false;
    for (llvm::Instruction &inst : llvm::instructions(function))
      needed |= involvesIllegalWidth(inst);
    if (needed)
      IntegerPromotion(function).run();
  }
}

/// A switch may send several cases to one block, and a phi there then
/// lists the switch's block once per case; SPIR-V's OpPhi names each
/// predecessor once. The repeated edges go through one new block instead.
void separateRepeatedEdges(llvm::Module &module) {
  for (llvm::Function &function : module) {
    std::vector<llvm::Instruction *> terminators;
    for (llvm::BasicBlock &block : function)
      if (block.getTerminator() &&
          block.getTerminator()->getNumSuccessors() > 1)
        terminators.push_back(block.getTerminator());
    for (llvm::Instruction *terminator : terminators) {
      llvm::BasicBlock *from = terminator->getParent();
      llvm::DenseMap<llvm::BasicBlock *, llvm::BasicBlock *> forwarders;
      llvm::SmallPtrSet<llvm::BasicBlock *, 8> seen;
      for (unsigned i = 0; i < terminator->getNumSuccessors(); ++i) {
        llvm::BasicBlock *target = terminator->getSuccessor(i);
        if (seen.insert(target).second ||
            !llvm::isa<llvm::PHINode>(target->front()))
          continue;
        llvm::BasicBlock *&forwarder = forwarders[target];
        if (!forwarder) {
          forwarder = llvm::BasicBlock::Create(
              function.getContext(),
              from->getName() + ".to." + target->getName(), &function, target);
          llvm::BranchInst::Create(target, forwarder);
          for (llvm::PHINode &phi : target->phis()) {
            llvm::Value *value = phi.getIncomingValueForBlock(from);
            phi.removeIncomingValue(from, false);
            phi.addIncoming(value, forwarder);
          }
        } else {
          for (llvm::PHINode &phi : target->phis())
            phi.removeIncomingValue(from, false);
        }
        terminator->setSuccessor(i, forwarder);
      }
    }
  }
}

} // namespace spirjit
