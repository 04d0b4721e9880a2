// Seeded mutants of the code-object fixtures through the whole kernel
// compiler: bytecode -> pyir -> typed -> LLVM -> SPIR-V. Whatever the
// bytes, the compiler must answer with a UserError (the input's fault) or
// compile; an internal error is counted and printed (the input is not one
// CPython makes), and anything else (another exception escaping, or a
// crash, which ends this test) fails. The seeds are fixed: CI runs the
// same mutants every time, and a failure names its fixture and seed.
#include "Fixtures.h"
#include "Requests.h"

#include "compiler/Pipeline.h"
#include "frontend/Diagnostics.h"
#include "launch/HostCall.h"

#include <gtest/gtest.h>

#include <iostream>
#include <random>

namespace spirjit {
namespace {

const char *const kFixtures[] = {
    "boolean_ops",  "chained_compare", "diamond",      "early_return",
    "floor_ops",    "literal_float32", "loop_branch",  "loop_in_branch",
    "negative_index", "negative_step", "nested_loops", "nested_sum",
    "returns_value", "ternary_and_or", "tuple_unpack", "two_d",
    "unpack_swap",  "uses_math",       "vecadd",       "while_break"};

const int kMutantsPerFixture = 100;

/// One random change: an opcode or argument byte, two instructions
/// swapped, the code cut short, a constant of another kind, or a name
/// pointing elsewhere.
void mutate(FunctionDescription &f, std::mt19937 &rng) {
  auto pick = [&](size_t n) {
    return static_cast<size_t>(std::uniform_int_distribution<size_t>(
        0, n == 0 ? 0 : n - 1)(rng));
  };
  std::vector<uint8_t> &code = f.code;
  switch (pick(6)) {
  case 0:
    if (!code.empty())
      code[pick(code.size() / 2) * 2] = static_cast<uint8_t>(pick(256));
    break;
  case 1:
    if (!code.empty())
      code[pick(code.size() / 2) * 2 + 1] = static_cast<uint8_t>(pick(256));
    break;
  case 2:
    if (code.size() >= 4) {
      size_t a = pick(code.size() / 2) * 2, b = pick(code.size() / 2) * 2;
      std::swap(code[a], code[b]);
      std::swap(code[a + 1], code[b + 1]);
    }
    break;
  case 3:
    code.resize(pick(code.size() / 2 + 1) * 2);
    break;
  case 4:
    if (!f.consts.empty()) {
      ConstValue &c = f.consts[pick(f.consts.size())];
      const ConstValue choices[] = {ConstValue::none(), ConstValue::ofInt(-1),
                                    ConstValue::ofFloat(0.5),
                                    ConstValue::ofBool(true),
                                    ConstValue::ofText(ConstValue::Kind::Str,
                                                       "x")};
      c = choices[pick(5)];
    }
    break;
  default:
    if (f.names.size() >= 2)
      std::swap(f.names[pick(f.names.size())], f.names[pick(f.names.size())]);
    break;
  }
}

/// How mutants fared.
struct Outcomes {
  int compiled = 0, userErrors = 0, internalErrors = 0;

  /// Runs `compile` on one mutant and files the outcome.
  template <typename Compile>
  void run(const char *name, int seed, Compile compile) {
    SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
    try {
      compile();
      ++compiled;
    } catch (const UserError &) {
      ++userErrors;
    } catch (const InternalError &e) {
      ++internalErrors;
      std::cout << "[fuzz] internal error on " << name << " seed " << seed
                << ": " << e.what() << "\n";
    } catch (const std::exception &e) {
      ADD_FAILURE() << "an exception that is neither a user error nor an "
                       "internal one: "
                    << e.what();
    }
  }
  void print(const char *what) const {
    std::cout << "[fuzz] " << what << ": " << compiled << " compiled, "
              << userErrors << " user errors, " << internalErrors
              << " internal errors\n";
  }
};

TEST(Fuzz, MutantsGetAUserErrorOrCompile) {
  Outcomes outcomes;
  for (const char *name : kFixtures) {
    const FunctionDescription original = testing::loadFixture("py311", name);
    for (int seed = 0; seed < kMutantsPerFixture; ++seed) {
      std::mt19937 rng(static_cast<unsigned>(seed * 7919 + 17));
      FunctionDescription mutant = original;
      for (int changes = 1 + seed % 3; changes > 0; --changes)
        mutate(mutant, rng);
      // Arrays for every parameter after the item: the mutant decides what
      // it does with them.
      std::string signature = "(";
      for (int i = 1; i < mutant.argCount; ++i)
        signature += std::string(i > 1 ? ", " : "") + "float64[::1]";
      signature += ")";
      outcomes.run(name, seed, [&] {
        compileKernel(testing::kernelRequest(mutant, signature),
                      DeviceCapabilities{});
      });
    }
  }
  outcomes.print("kernels");
  // The seeds must exercise both outcomes, or the mutations test nothing.
  EXPECT_GT(outcomes.userErrors, 0);
  EXPECT_GT(outcomes.compiled + outcomes.internalErrors, 0);
}

TEST(Fuzz, JitMutantsGetAUserErrorOrCompile) {
  // The host pipeline too: parfor outlining, array expressions, host code
  // through the JIT (which links it against the launcher's helpers).
  launch::defineHostHelpers();
  Outcomes outcomes;
  for (const char *name : {"parfor_nest", "parfor_reductions",
                           "parfor_carried", "vecadd", "nested_sum"}) {
    const FunctionDescription original = testing::loadFixture("py311", name);
    for (int seed = 0; seed < 40; ++seed) {
      std::mt19937 rng(static_cast<unsigned>(seed * 104729 + 5));
      FunctionDescription mutant = original;
      for (int changes = 1 + seed % 3; changes > 0; --changes)
        mutate(mutant, rng);
      HostRequest request;
      request.function = &mutant;
      for (int i = 0; i < mutant.argCount; ++i)
        request.argumentTypes.push_back(
            types::array(types::floating(32), i % 2 + 1, 'C'));
      outcomes.run(name, seed, [&] { compileHost(request); });
    }
  }
  outcomes.print("jit");
  EXPECT_GT(outcomes.userErrors, 0);
  EXPECT_GT(outcomes.compiled, 0);
  EXPECT_EQ(outcomes.internalErrors, 0);
}

} // namespace
} // namespace spirjit
