// The compiler in isolation: NumPy promotion, signatures, type inference,
// and whole-pipeline output that SPIRV-Tools accepts.
#include "Fixtures.h"
#include "Requests.h"

#include "compiler/ArrayOps.h"
#include "compiler/ArrayValues.h"
#include "compiler/KernelABI.h"
#include "compiler/KernelAPI.h"
#include "compiler/LowerToLLVM.h"
#include "compiler/Optimize.h"
#include "compiler/Pipeline.h"
#include "compiler/SPIRV.h"
#include "compiler/Target.h"
#include "compiler/TypeInference.h"
#include "frontend/BuildPyIR.h"
#include "frontend/Bytecode.h"
#include "frontend/ControlFlowGraph.h"
#include "frontend/Diagnostics.h"

#include <gtest/gtest.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include <algorithm>
#include <cstring>
#include <regex>
#include <sstream>

using namespace spirjit;
using spirjit::testing::kernelRequest;
using spirjit::testing::loadFixture;

namespace {

const Type *t(const char *name) { return types::fromDTypeName(name); }

TypedFunction typeFixture(const FunctionDescription &f,
                          std::vector<const Type *> args, int ndim = 1) {
  args.insert(args.begin(), types::item(ndim));
  auto ir = buildPyIR(f, buildControlFlowGraph(decodeBytecode(f)));
  static Specializations specializations; // no device functions here
  return inferTypes(f, std::move(ir), args, FunctionKind::Kernel,
                    specializations);
}

const ir::Instruction *firstOf(const TypedFunction &typed, ir::Opcode op) {
  for (const auto &block : typed.function->blocks)
    for (const auto &inst : block->instructions)
      if (inst->opcode == op)
        return inst.get();
  return nullptr;
}

} // namespace

TEST(Promotion, FollowsNumPy2) {
  // Expected values are numpy.result_type of the two dtypes (NumPy 2.x).
  EXPECT_EQ(types::promote(t("int32"), t("int64")), t("int64"));
  EXPECT_EQ(types::promote(t("uint8"), t("int8")), t("int16"));
  EXPECT_EQ(types::promote(t("uint32"), t("int32")), t("int64"));
  EXPECT_EQ(types::promote(t("uint64"), t("int64")), t("float64"));
  EXPECT_EQ(types::promote(t("int32"), t("float32")), t("float64"));
  EXPECT_EQ(types::promote(t("int16"), t("float32")), t("float32"));
  EXPECT_EQ(types::promote(t("bool"), t("uint16")), t("uint16"));
  EXPECT_EQ(types::promote(t("float32"), t("float64")), t("float64"));
}

TEST(Promotion, PythonLiteralsAreWeak) {
  // NEP 50: float32 * 2.0 stays float32, int8 + 1 stays int8.
  EXPECT_EQ(types::promote(t("float32"), types::weakFloat()), t("float32"));
  EXPECT_EQ(types::promote(t("int8"), types::weakInt()), t("int8"));
  EXPECT_EQ(types::promote(t("int32"), types::weakFloat()), t("float64"));
  EXPECT_EQ(types::promote(types::weakInt(), types::weakFloat()),
            types::weakFloat());
  EXPECT_EQ(types::materialize(types::weakInt()), t("int64"));
}

TEST(Signature, ParsesNumbaStyle) {
  auto sig = types::parseSignature("(float32[::1], int64[:, :], "
                                   "float64[::1, :], uint8)");
  ASSERT_EQ(sig.arguments.size(), 4u);
  EXPECT_EQ(sig.arguments[0], types::array(t("float32"), 1, 'C'));
  EXPECT_EQ(sig.arguments[1], types::array(t("int64"), 2, 'A'));
  EXPECT_EQ(sig.arguments[2], types::array(t("float64"), 2, 'F'));
  EXPECT_EQ(sig.arguments[3], t("uint8"));
  EXPECT_EQ(types::parseSignature("float64(float64, int64)").returnType,
            t("float64"));
}

TEST(Signature, ErrorsSayWhatIsWrong) {
  try {
    types::parseSignature("(float33[::1])");
    FAIL();
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("unknown type 'float33'"),
              std::string::npos);
  }
  EXPECT_THROW(types::parseSignature("(float32[::1]"), std::invalid_argument);
  EXPECT_THROW(types::parseSignature("(int32[::1, ::1])"),
               std::invalid_argument);
}

TEST(TypeInference, VecaddKeepsTheElementType) {
  const Type *f32 = types::array(t("float32"), 1, 'C');
  FunctionDescription f = loadFixture("py311", "vecadd");
  TypedFunction typed = typeFixture(f, {f32, f32, f32});
  EXPECT_EQ(firstOf(typed, ir::Opcode::BinaryOp)->type, t("float32"));
  EXPECT_EQ(typed.writtenArguments,
            (std::vector<bool>{false, false, false, true}));
}

TEST(TypeInference, MixedArraysPromote) {
  FunctionDescription f = loadFixture("py311", "vecadd");
  TypedFunction typed =
      typeFixture(f, {types::array(t("int32"), 1, 'C'),
                      types::array(t("float32"), 1, 'C'),
                      types::array(t("float64"), 1, 'C')});
  EXPECT_EQ(firstOf(typed, ir::Opcode::BinaryOp)->type, t("float64"));
}

TEST(TypeInference, LiteralsStayFloat32) {
  FunctionDescription f = loadFixture("py311", "literal_float32");
  const Type *f32 = types::array(t("float32"), 1, 'C');
  TypedFunction typed = typeFixture(f, {f32, f32});
  for (const auto &block : typed.function->blocks)
    for (const auto &inst : block->instructions)
      if (inst->opcode == ir::Opcode::BinaryOp)
        EXPECT_EQ(inst->type, t("float32")) << ir::print(*typed.function);
}

TEST(TypeInference, LoopAccumulatorTakesTheArrayType) {
  FunctionDescription f = loadFixture("py311", "loop_branch");
  TypedFunction typed =
      typeFixture(f, {types::array(t("float32"), 1, 'C'),
                      types::array(t("float32"), 1, 'C')});
  // total = 0; total += a[k] (float32): the phi is float32 (NEP 50).
  const ir::Instruction *phi = nullptr;
  for (const auto &block : typed.function->blocks)
    for (const auto &inst : block->instructions)
      if (inst->opcode == ir::Opcode::Phi && inst->type == t("float32"))
        phi = inst.get();
  EXPECT_NE(phi, nullptr) << ir::print(*typed.function);
}

TEST(TypeInference, KernelReturningAValueIsRejected) {
  FunctionDescription f = loadFixture("py311", "returns_value");
  try {
    typeFixture(f, {types::array(t("float32"), 1, 'C')});
    FAIL();
  } catch (const UserError &e) {
    EXPECT_EQ(e.kind(), UserErrorKind::KernelReturnValue);
    EXPECT_EQ(e.line(), f.firstLine + 1);
  }
}

TEST(TypeInference, BitwiseOnFloatsIsATypingError) {
  FunctionDescription f = loadFixture("py311", "floor_ops");
  const Type *f32 = types::array(t("float32"), 1, 'C');
  EXPECT_NO_THROW(typeFixture(f, {f32, f32, f32})); // float // and % exist
  FunctionDescription g = loadFixture("py311", "tuple_unpack");
  try {
    typeFixture(g, {types::array(t("float32"), 1, 'C')});
    FAIL() << "unpacking a 1-D shape into two names was accepted";
  } catch (const UserError &e) {
    EXPECT_EQ(e.kind(), UserErrorKind::Typing);
  }
}

TEST(Pipeline, StageTableListsEveryStageOnceInOrder) {
  std::vector<std::string> names;
  for (const StageInfo &info : allStages())
    names.push_back(info.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bytecode", "pyir", "typed",
                                             "parfor", "llir", "llir.opt",
                                             "spv", "spir", "ptx",
                                             "native"}));
  EXPECT_EQ(stageByName("llir.opt"), Stage::LLIROpt);
  EXPECT_THROW(stageByName("nope"), std::invalid_argument);
}

TEST(Pipeline, EveryFixtureGivesValidSPIRV) {
  struct Case {
    const char *name;
    std::string signature;
    int ndim;
  } cases[] = {
      {"vecadd", "(float32[::1], float32[::1], float32[::1])", 1},
      {"vecadd", "(int64[:], int32[::1], float64[::1])", 1},
      {"loop_branch", "(float64[::1], float64[::1])", 1},
      {"negative_step", "(int32[::1])", 1},
      {"while_break", "(int64[::1])", 1},
      {"boolean_ops", "(int16[::1], int8[::1])", 1},
      {"two_d", "(float32[:, ::1], float32[::1, :])", 2},
      {"literal_float32", "(float32[::1], float32[::1])", 1},
      {"floor_ops", "(int32[::1], int32[::1], int32[::1])", 1},
      {"floor_ops", "(float64[::1], float64[::1], float64[::1])", 1},
      {"tuple_unpack", "(uint16[:, :])", 1},
  };
  for (const Case &c : cases) {
    FunctionDescription f = loadFixture("py311", c.name);
    KernelRequest request = kernelRequest(f, c.signature, c.ndim);
    CompileOptions options;
    std::vector<Stage> printed;
    options.dump = [&](Stage s, const std::string &text) {
      printed.push_back(s);
      EXPECT_FALSE(text.empty());
    };
    CompiledKernel kernel = compileKernel(request, {}, options);
    ASSERT_EQ(kernel.image.format, ImageFormat::SPIRV) << c.name;
    ASSERT_FALSE(kernel.image.bytes.empty()) << c.name;
    ASSERT_EQ(kernel.image.bytes.size() % 4, 0u) << c.name;
    std::vector<uint32_t> spirv(kernel.image.bytes.size() / 4);
    std::memcpy(spirv.data(), kernel.image.bytes.data(),
                kernel.image.bytes.size());
    EXPECT_EQ(spirv[0], 0x07230203u) << "SPIR-V magic";
    EXPECT_EQ(validateSPIRV(spirv), "") << c.name;
    // Every stage up to the image's: the SPIR-V is the image here.
    // (every stage but the other images': spir, ptx and native)
    EXPECT_EQ(printed.size(), allStages().size() - 3) << "every stage printable";
    EXPECT_EQ(printed.back(), Stage::SPV);
    EXPECT_EQ(kernel.entryPoint, std::string("spirjit_") + c.name);
    // A device that takes SPIR bitcode gets it as its image, printed as
    // the last stage.
    DeviceCapabilities spirDevice;
    spirDevice.imageFormats = {ImageFormat::SPIRBitcode};
    printed.clear();
    CompiledKernel spir = compileKernel(request, spirDevice, options);
    EXPECT_EQ(spir.image.format, ImageFormat::SPIRBitcode) << c.name;
    EXPECT_EQ(printed.back(), Stage::SPIR) << c.name;
    // The way back for PoCL: SPIR 1.2 bitcode starts with 'BC'.
    std::vector<char> bitcode = lowerSPIRVToSPIRBitcode(spirv);
    ASSERT_GE(bitcode.size(), 4u);
    EXPECT_EQ(bitcode[0], 'B');
    EXPECT_EQ(bitcode[1], 'C');
  }
}

namespace {
std::string optimizedLLVM(const FunctionDescription &f,
                          const std::string &signature) {
  KernelRequest request = kernelRequest(f, signature);
  std::string text;
  CompileOptions options;
  options.wantsDump = [](Stage s) { return s == Stage::LLIROpt; };
  options.dump = [&](Stage, const std::string &t) { text = t; };
  compileKernel(request, {}, options);
  // The same computation may be scheduled and named differently: compare
  // the multiset of instructions with value names erased.
  text = std::regex_replace(text, std::regex("%[A-Za-z0-9_.]+"), "%v");
  std::istringstream lines(text);
  std::vector<std::string> sorted;
  for (std::string line; std::getline(lines, line);)
    sorted.push_back(line);
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (const std::string &line : sorted)
    out += line + "\n";
  return out;
}
} // namespace

TEST(Python312, DifferentBytecodeGivesTheSameOptimizedLLVM) {
  std::pair<const char *, const char *> cases[] = {
      {"boolean_ops", "(int32[::1], int32[::1])"},
      {"chained_compare", "(float32[::1], int8[::1])"},
      {"ternary_and_or", "(int64[::1], int64[::1])"},
      {"loop_branch", "(float64[::1], float64[::1])"},
      {"nested_loops", "(int64[::1])"}};
  for (auto [name, signature] : cases) {
    std::string a = optimizedLLVM(loadFixture("py311", name), signature);
    std::string b = optimizedLLVM(loadFixture("py312", name), signature);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, b) << name;
  }
}

namespace {

/// The SPIR target's module-wide layer without its device layer: what a
/// host target is to the lowering and the optimiser.
class ModuleOnlyTarget : public Target {
public:
  std::string name() const override { return "module-only"; }
  void configureModule(llvm::Module &module) const override {
    spir_->configureModule(module);
  }
  unsigned addressSpace(MemorySpace space) const override {
    return spir_->addressSpace(space);
  }
  void markKernel(llvm::Function &function) const override {
    spir_->markKernel(function);
  }
  llvm::CallingConv::ID functionCallingConvention() const override {
    return spir_->functionCallingConvention();
  }
  llvm::Value *emitMathCall(llvm::IRBuilder<> &builder, const std::string &name,
                            llvm::ArrayRef<llvm::Value *> args) const override {
    return spir_->emitMathCall(builder, name, args);
  }

private:
  std::unique_ptr<DeviceTarget> spir_ = createSPIRTarget();
};

/// sum(range(n)) as a loop: LLVM's closed form of it needs i65.
const char *loopSum = R"(
define i64 @sum(i64 %n) {
entry:
  %positive = icmp sgt i64 %n, 0
  br i1 %positive, label %loop, label %exit
loop:
  %k = phi i64 [ 0, %entry ], [ %next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %sum, %loop ]
  %sum = add i64 %s, %k
  %next = add nsw i64 %k, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  %result = phi i64 [ 0, %entry ], [ %sum, %loop ]
  ret i64 %result
}
)";

std::string optimizedLoopSum(const Target &target) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(loopSum, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  optimizeModule(*module, 2, target);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return os.str();
}

llvm::ReplaceExitVal exitValueStrategy() {
  return static_cast<llvm::cl::opt<llvm::ReplaceExitVal> *>(
             llvm::cl::getRegisteredOptions().lookup("replexitval"))
      ->getValue();
}

} // namespace

TEST(Target, OnlyKernelApiConstructsNeedTheDeviceLayer) {
  // vecadd asks for its work-item id: a host target cannot lower it, and
  // says so as an internal error rather than emitting something wrong.
  const Type *f32 = types::array(t("float32"), 1, 'C');
  FunctionDescription f = loadFixture("py311", "vecadd");
  TypedFunction typed = typeFixture(f, {f32, f32, f32});
  llvm::LLVMContext context;
  context.setOpaquePointers(false);
  EXPECT_THROW(lowerToLLVM(typed, ModuleOnlyTarget(), context, {}),
               InternalError);
  EXPECT_TRUE(lowerToLLVM(typed, *createSPIRTarget(), context, {}));
}

TEST(Optimize, LoopExitValuesAreKeptForSPIRVOnly) {
  // SPIR-V has no i65, so the SPIR target keeps the loop; a target that
  // can take the closed form gets it, in the same process, before and
  // after: the option is never left set.
  llvm::ReplaceExitVal before = exitValueStrategy();
  std::string spirv = optimizedLoopSum(*createSPIRTarget());
  EXPECT_EQ(spirv.find("i65"), std::string::npos) << spirv;
  EXPECT_EQ(exitValueStrategy(), before);
  std::string host = optimizedLoopSum(ModuleOnlyTarget());
  EXPECT_NE(host.find("i65"), std::string::npos) << host;
  EXPECT_EQ(exitValueStrategy(), before);
}

TEST(Optimize, SPIRVLegalisationRemovesWhatTheTranslatorCannotTake) {
  const char *untranslatable = R"(
declare i32 @llvm.abs.i32(i32, i1)
define { float, float } @f(i1 %c, i32 %x, { float, float } %a,
                           { float, float } %b) {
  %frozen = freeze i32 %x
  %abs = call i32 @llvm.abs.i32(i32 %frozen, i1 false)
  %z = select i1 %c, { float, float } %a, { float, float } %b
  ret { float, float } %z
}
)";
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(untranslatable, error, context);
  ASSERT_TRUE(module) << error.getMessage().str();
  createSPIRTarget()->legalize(*module);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  os.flush();
  EXPECT_EQ(text.find("freeze"), std::string::npos) << text;
  EXPECT_EQ(text.find("call i32 @llvm.abs"), std::string::npos) << text;
  EXPECT_EQ(text.find("select i1 %c, { float, float }"), std::string::npos)
      << text;
  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
}

TEST(KernelAPI, CalleeTypesFindTheirTableRow) {
  const KernelApiFunction *barrier =
      findKernelApi(types::function("spirjit.kernel_api.group_barrier"));
  ASSERT_NE(barrier, nullptr);
  EXPECT_EQ(barrier->id, KernelApi::GroupBarrier);
  EXPECT_EQ(barrier->parameters,
            (std::vector<std::string>{"group", "fence_scope"}));
  EXPECT_EQ(barrier->required, 1u);
  // The same name on another receiver is another row.
  const KernelApiFunction *ndItemRange =
      findKernelApi(types::method(types::ndItem(1), "get_local_range"));
  const KernelApiFunction *groupRange =
      findKernelApi(types::method(types::group(1), "get_local_range"));
  ASSERT_TRUE(ndItemRange && groupRange);
  EXPECT_EQ(ndItemRange->id, KernelApi::NdItemGetLocalRange);
  EXPECT_EQ(groupRange->id, KernelApi::GroupGetLocalRange);
  EXPECT_EQ(findKernelApi(types::function("spirjit.kernel_api.Range")),
            nullptr);
  EXPECT_EQ(findKernelApi(types::function("math.sqrt")), nullptr);
  EXPECT_EQ(kernelApiEnums().at("AddressSpace").at("LOCAL"), 3);
}

// jit array statements name an operator's ufunc (StatementGraph), and
// kernels read the ufunc as the operator again (ufuncOperator): each
// operator row of ArrayOps.def must map back to itself.
TEST(ArrayOps, OperatorUfuncsMapBackToTheirOperators) {
  int operators = 0;
  for (const ArrayOp &row : arrayOps()) {
    std::optional<UfuncOperator> op =
        ufuncOperator("numpy." + std::string(row.numpy));
    if (!op)
      continue;
    ++operators;
    EXPECT_EQ(ufuncOfOperator(op->opcode, op->op), &row) << row.numpy;
  }
  EXPECT_EQ(operators, 21); // 7 arithmetic, 6 comparisons, 5 bitwise, 3 unary
  EXPECT_EQ(ufuncOfOperator(ir::Opcode::BinaryOp,
                            int64_t(ir::BinaryOperator::MatMul)),
            nullptr);
  EXPECT_EQ(
      ufuncOfOperator(ir::Opcode::UnaryOp, int64_t(ir::UnaryOperator::Not)),
      nullptr);
}

TEST(Pipeline, RequiredItemRankFollowsTheItemQueries) {
  FunctionDescription vecadd = loadFixture("py311", "vecadd");
  FunctionDescription twoD = loadFixture("py311", "two_d");
  EXPECT_EQ(requiredItemRank(
                kernelRequest(vecadd,
                              "(float32[::1], float32[::1], float32[::1])"),
                {}),
            1);
  EXPECT_EQ(
      requiredItemRank(kernelRequest(twoD, "(float32[:, ::1], float32[:, ::1])"),
                       {}),
      2);
}

TEST(Pipeline, DoublePrecisionOnADeviceWithoutItIsATypingErrorAtTheLine) {
  DeviceCapabilities noFp64;
  noFp64.name = "Tiny GPU";
  noFp64.fp64 = false;
  // An argument: named, at the function's first line (the message users
  // know from the launcher's former check).
  FunctionDescription vecadd = loadFixture("py311", "vecadd");
  KernelRequest request =
      kernelRequest(vecadd, "(float32[::1], float64[::1], float32[::1])");
  try {
    compileKernel(request, noFp64);
    FAIL() << "float64 compiled for a device without fp64";
  } catch (const UserError &e) {
    EXPECT_EQ(e.kind(), UserErrorKind::Typing);
    EXPECT_EQ(e.line(), vecadd.firstLine);
    EXPECT_EQ(e.message(), "argument 2 is float64, but Tiny GPU has no "
                           "double precision; use float32");
  }
  // An operation: int32 * 2.0 is float64 (NEP 50), at its own line.
  FunctionDescription literal = loadFixture("py311", "literal_float32");
  request = kernelRequest(literal, "(int32[::1], float32[::1])");
  try {
    compileKernel(request, noFp64);
    FAIL() << "a float64 operation compiled for a device without fp64";
  } catch (const UserError &e) {
    EXPECT_EQ(e.kind(), UserErrorKind::Typing);
    EXPECT_EQ(e.filename(), "functions.py");
    EXPECT_EQ(e.line(), literal.firstLine + 2) << e.what();
    EXPECT_NE(e.message().find("float64"), std::string::npos);
    EXPECT_NE(e.message().find("Tiny GPU"), std::string::npos);
  }
  // The same kernels compile where fp64 is available, and float32 code
  // compiles without it.
  EXPECT_NO_THROW(compileKernel(request, {}));
  request = kernelRequest(literal, "(float32[::1], float32[::1])");
  EXPECT_NO_THROW(compileKernel(request, noFp64));
}

TEST(Pipeline, RoundOfFloat32WithoutFp64StaysInFloat32) {
  // round(x, n) of a float32 rounds the double it is where the device has
  // fp64, and in float32 where it has not: no double reaches such a device.
  FunctionDescription f = loadFixture("py311", "round_digits");
  KernelRequest request = kernelRequest(f, "(float32[::1], float32[::1])");
  auto llvmOf = [&](const DeviceCapabilities &device) {
    std::string text;
    CompileOptions options;
    options.wantsDump = [](Stage s) { return s == Stage::LLIR; };
    options.dump = [&](Stage, const std::string &t) { text = t; };
    compileKernel(request, device, options);
    return text;
  };
  DeviceCapabilities noFp64;
  noFp64.name = "Tiny GPU";
  noFp64.fp64 = false;
  std::string narrow = llvmOf(noFp64);
  EXPECT_NE(narrow.find("@spirjit.round.digits.f32"), std::string::npos);
  EXPECT_EQ(narrow.find("double"), std::string::npos) << narrow;
  std::string wide = llvmOf({});
  EXPECT_NE(wide.find("@spirjit.round.digits.f64"), std::string::npos);
}

// A namedtuple is a tuple that knows its class: two classes of the same
// fields are two types, and a tuple argument of arrays and tuples travels
// as its elements' parameters, each named by its place.
TEST(KernelABI, TupleArgumentsAreTheirElementsParameters) {
  const Type *point = types::namedTuple("m.Point", {"x", "y"},
                                        {types::int64(), types::int64()});
  const Type *pixel = types::namedTuple("m.Pixel", {"x", "y"},
                                        {types::int64(), types::int64()});
  EXPECT_NE(point, pixel);
  EXPECT_NE(point, types::tuple({types::int64(), types::int64()}));
  EXPECT_EQ(point->str(), "m.Point(x=int64, y=int64)");
  const Type *grid = types::namedTuple(
      "m.Grid", {"values", "spacing", "origin"},
      {types::array(types::floating(64), 1, 'C'), types::floating(64), point});
  std::vector<KernelParameter> params = kernelParameters({grid});
  ASSERT_EQ(params.size(), 5u);
  using Kind = KernelParameter::Kind;
  EXPECT_EQ(params[0].kind, Kind::ArrayData);
  EXPECT_EQ(params[0].element, std::vector<int>{0});
  EXPECT_EQ(params[1].kind, Kind::ArrayShape);
  EXPECT_EQ(params[2].kind, Kind::Scalar);
  EXPECT_EQ(params[2].element, std::vector<int>{1});
  EXPECT_EQ(params[4].element, (std::vector<int>{2, 1}));
  EXPECT_EQ(parameterType(params[4], {grid}), types::int64());
}
