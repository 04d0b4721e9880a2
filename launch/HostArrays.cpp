// What a launch's host arrays occupy (HostArrays.h).
#include "launch/HostArrays.h"

#include <algorithm>
#include <tuple>

namespace spirjit::launch {

Extent extentOf(const ArgumentValue &a) {
  int ndim = a.type->ndim;
  for (int d = 0; d < ndim; ++d)
    if (a.shape[d] == 0)
      return {};
  int64_t low = 0, high = a.itemsize;
  for (int d = 0; d < ndim; ++d) {
    int64_t reach = (a.shape[d] - 1) * a.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  return {low, static_cast<size_t>(high - low)};
}

bool arraysDisjoint(const ArgumentValue *args, size_t n) {
  struct Span {
    const void *space;
    uintptr_t low, high;
    bool writable;
    bool operator<(const Span &o) const {
      return std::tie(space, low) < std::tie(o.space, o.low);
    }
  };
  Span spans[16];
  std::vector<Span> more;
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    const ArgumentValue &a = args[i];
    if (a.kind != ArgumentValue::Kind::DeviceArray &&
        a.kind != ArgumentValue::Kind::HostArray)
      continue;
    intptr_t low = 0, high = a.itemsize;
    bool empty = false;
    for (int d = 0; d < a.type->ndim; ++d) {
      if (a.shape[d] == 0)
        empty = true;
      int64_t reach = a.strides[d] * (a.shape[d] - 1);
      (reach < 0 ? low : high) += reach;
    }
    if (empty)
      continue;
    Span span{nullptr, 0, 0, a.writable};
    uintptr_t base;
    if (a.kind == ArgumentValue::Kind::HostArray) {
      base = reinterpret_cast<uintptr_t>(a.data);
    } else if (void *svm = (*a.buffer)->svm()) {
      base = reinterpret_cast<uintptr_t>(svm) + a.offset;
    } else {
      span.space = a.buffer->get();
      base = static_cast<uintptr_t>(a.offset);
    }
    span.low = base + low;
    span.high = base + high;
    if (count < 16)
      spans[count++] = span;
    else
      more.push_back(span);
  }
  Span *all = spans;
  if (!more.empty()) { // more than 16 arrays: rare, allocate
    more.insert(more.end(), spans, spans + count);
    all = more.data();
    count = more.size();
  }
  // Sorted by start, a span overlaps an earlier one of its space exactly
  // when it starts before the furthest end so far (of any span, for a
  // writable one; of a writable one, for the others).
  std::sort(all, all + count);
  uintptr_t end = 0, writableEnd = 0;
  for (size_t k = 0; k < count; ++k) {
    if (k == 0 || all[k].space != all[k - 1].space)
      end = writableEnd = 0;
    if (all[k].low < (all[k].writable ? end : writableEnd))
      return false;
    end = std::max(end, all[k].high);
    if (all[k].writable)
      writableEnd = std::max(writableEnd, all[k].high);
  }
  return true;
}

void hostArrayUnions(const ArgumentValue *args, size_t n,
                     std::vector<std::pair<char *, size_t>> &byStart,
                     char **unionBegin, size_t *unionBytes) {
  byStart.clear();
  for (size_t i = 0; i < n; ++i)
    if (args[i].kind == ArgumentValue::Kind::HostArray) {
      Extent extent = extentOf(args[i]);
      if (extent.bytes)
        byStart.push_back({static_cast<char *>(args[i].data) + extent.low, i});
    }
  std::sort(byStart.begin(), byStart.end());
  for (size_t k = 0; k < byStart.size();) {
    char *begin = byStart[k].first;
    char *end = begin;
    size_t last = k;
    for (; last < byStart.size() && (last == k || byStart[last].first < end);
         ++last) {
      const ArgumentValue &a = args[byStart[last].second];
      Extent extent = extentOf(a);
      end = std::max(end, static_cast<char *>(a.data) + extent.low +
                              extent.bytes);
    }
    for (; k < last; ++k) {
      unionBegin[byStart[k].second] = begin;
      unionBytes[byStart[k].second] = static_cast<size_t>(end - begin);
    }
  }
}

} // namespace spirjit::launch
