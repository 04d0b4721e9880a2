// np.random in jit code, as numba takes it: np.random.seed, random
// (random_sample, sample, ranf), rand, randn, uniform, normal and randint
// give numbers in host code and in prange bodies; their array forms (a
// size or extents) are the jit library's prange loops of these draws.
//
// The generator is counter-based, as device code wants: a draw's 64 bits
// are a hash (splitmix64's finaliser, chained) of a key and counters. In
// host code the key and the counter are the calling thread's
// (spirjit_host_random, compiler/HostABI.h; np.random.seed sets them), as
// numba gives each thread its own state. A prange loop whose body draws
// takes one host draw, its stream, before it starts; each draw in the body
// hashes the stream, the indices of the loops around it from the prange
// inward, and a count of the work-item's draws so far. Draws are therefore
// independent across iterations, reproducible after a seed whatever the
// device or the work-items' order, and not NumPy's stream.
//
// Contract: requires the typed host function (FunctionKind::Host), its
// np.random calls typed (InferCalls.cpp, which refuses them in kernels).
// Each becomes a `random` instruction (PyIROpcodes.def) of its draw, its
// parameters (defaults made constants), and, inside a prange loop, the
// loop's stream (a `random` of RandomDraw::Stream before the loop) and the
// indices of the for loops holding it from that loop inward. Keeps the
// types (the instructions it makes are typed). np.random.seed inside a
// prange body is a UserError.
#pragma once

#include "compiler/TypeInference.h"

#include <string>
#include <vector>

namespace spirjit {

/// What a `random` instruction draws (its index).
enum class RandomDraw {
  Seed,    // np.random.seed(seed): no value
  Stream,  // a prange loop's stream: 64 bits of the host's generator
  Uniform, // low + (high - low) * [0, 1), float64
  Normal,  // loc + scale * a standard normal (Box-Muller), float64
  Integer, // low + bits % (high - low), int64 (1 where high <= low)
};

/// One of np.random's functions jit code takes as a number.
struct RandomFunction {
  const char *name; // without "numpy.random."
  RandomDraw draw;
  /// NumPy's parameters; `size` last where NumPy has it (where it is given,
  /// the jit library draws an array).
  std::vector<std::string> parameters;
  /// The draw's two parameters where the call leaves them out.
  double defaults[2];
};

/// The np.random function of the qualified name "numpy.random.<name>", or
/// nullptr.
const RandomFunction *findRandomFunction(const std::string &qualifiedName);

/// The names jit code takes, for messages: "seed, random, ...".
std::string randomFunctionNames();

/// The type of a `random` instruction of draw `draw`.
const Type *randomDrawType(RandomDraw draw);

void lowerRandomDraws(TypedFunction &host);

} // namespace spirjit
