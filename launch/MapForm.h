// Private to launch/: the form of a Map evaluation (ArrayKernels.cpp),
// the key under which an evaluation's kernel and parameter layout are
// kept (the Map memo) and under which the host tier counts how often a
// form was seen (computeMapOnHost).
#pragma once

#include "launch/ArrayGraph.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace spirjit::launch {

/// The form of a Map evaluation: everything the kernel, its parameters'
/// layout and its launch depend on, but not which memory it reads and
/// writes or the scalars' values. A loop evaluates the same form again
/// and again (a Jacobi sweep, a chain in a time step); the last one's
/// finished parameters are kept (MapMemo) and only rebound, which skips
/// gathering the graph, merging dimensions, flattening views and finding
/// the kernel: about a third of an evaluation's host instructions.
/// The words a MapForm's key holds, kept between evaluations: appending
/// is a store (vector::push_back's call per word was a third of the
/// walk).
class FormKey {
public:
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  const int64_t *begin() const { return words_.data(); }
  const int64_t *end() const { return words_.data() + size_; }
  [[gnu::always_inline]] void push(int64_t word) {
    if (size_ == words_.size())
      grow();
    words_[size_++] = word;
  }
  bool equals(const std::vector<int64_t> &other) const {
    return other.size() == size_ && std::equal(begin(), end(), other.begin());
  }

private:
  void grow() { words_.resize(std::max<size_t>(64, 2 * size_)); }

  std::vector<int64_t> words_;
  size_t size_ = 0;
};

struct MapForm {
  FormKey key;
  /// The parameters in the gatherer's order (Index values excluded): an
  /// array's memory and offset, or a scalar's bytes.
  struct Binding {
    const std::shared_ptr<runtime::Buffer> *buffer = nullptr; // arrays
    int64_t offset = 0;
    uint64_t scalar[2] = {0, 0};
  };
  std::vector<Binding> bindings;
  /// Per array binding, where its strides are in `key` (to find repeats).
  std::vector<std::pair<size_t, const Type *>> arrays;
  std::vector<const ArrayNode *> visited;

  template <typename... Values> void put(Values... values) {
    (key.push(int64_t(values)), ...); // (pointers as their address)
  }

  // A node's dtype is its element's (one Type per dtype): the key holds
  // Types and interned pointers, not hashes of names.

  /// Walks `node` as the Gatherer would; false where the memo cannot be
  /// used (a reduction below must be computed first).
  bool walk(const ArrayNode &node, const std::vector<int64_t> &shape) {
    for (size_t i = 0; i < visited.size(); ++i)
      if (visited[i] == &node) {
        put(0, int64_t(i));
        return true;
      }
    visited.push_back(&node);
    switch (node.kind) {
    case ArrayNode::Kind::Memory: {
      put(1, int64_t(node.element), node.itemsize);
      size_t strides = key.size();
      size_t lead = shape.size() - node.view.shape.size();
      for (size_t d = 0; d < lead; ++d)
        key.push(0);
      for (size_t d = 0; d < node.view.shape.size(); ++d)
        key.push(node.view.shape[d] == 1 && shape[lead + d] != 1
                          ? 0
                          : node.view.strides[d]);
      // One parameter per distinct view (Gatherer::array).
      int64_t found = -1;
      size_t a = 0;
      for (size_t b = 0; b < bindings.size() && found < 0; ++b) {
        if (!bindings[b].buffer)
          continue;
        auto [at, element] = arrays[a++];
        if (*bindings[b].buffer == node.view.buffer &&
            bindings[b].offset == node.view.offset &&
            element == node.element &&
            std::equal(key.begin() + long(at),
                       key.begin() + long(at + shape.size()),
                       key.begin() + long(strides)))
          found = int64_t(b);
      }
      key.push(found);
      if (found < 0) {
        Binding binding;
        binding.buffer = &node.view.buffer;
        binding.offset = node.view.offset;
        bindings.push_back(binding);
        arrays.emplace_back(strides, node.element);
      }
      return true;
    }
    case ArrayNode::Kind::Scalar: {
      put(2, int64_t(node.element));
      Binding binding;
      binding.scalar[0] = node.scalar[0];
      binding.scalar[1] = node.scalar[1];
      bindings.push_back(binding);
      return true;
    }
    case ArrayNode::Kind::Index:
      put(3, node.axes[0], int64_t(node.shape.size()));
      for (int64_t e : node.shape)
        key.push(e);
      return true;
    case ArrayNode::Kind::Apply:
      // (The ufunc's name and its loop are interned: one pointer each.)
      put(4, node.function, node.loop, node.element,
          int64_t(node.operands.size()));
      if (node.callee)
        put(int64_t(node.callee->hash));
      for (size_t i = 0; i < node.operands.size(); ++i) {
        key.push(int64_t(node.operands[i]->element));
        if (!walk(*node.operands[i], shape))
          return false;
      }
      return true;
    case ArrayNode::Kind::Reduce:
      return false;
    }
    return false;
  }

  /// (The out's dtype is its element's: one Type per dtype.)
  bool of(const ArrayNode &node, const ArrayView &out, const Type *outElement,
          int64_t outItemsize) {
    key.clear();
    bindings.clear();
    arrays.clear();
    visited.clear();
    put(int64_t(outElement), outItemsize, int64_t(out.shape.size()));
    for (int64_t e : out.shape)
      key.push(e);
    for (int64_t s : out.strides)
      key.push(s);
    return walk(node, out.shape);
  }
};

} // namespace spirjit::launch
