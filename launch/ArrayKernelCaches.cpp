// The array kernels' caches: one KernelCache per distinct expression,
// made on first use, kept for the process (ArrayKernels.h).
#include "launch/ArrayKernels.h"

#include "launch/Launcher.h"

#include <memory>
#include <unordered_map>

namespace spirjit::launch {

namespace {

/// Each expression's kernel cache, by the expression's hash (then ==).
using ExpressionCaches =
    std::unordered_map<uint64_t,
                       std::vector<std::pair<ArrayExpression,
                                             std::unique_ptr<KernelCache>>>>;
ExpressionCaches &caches() {
  static ExpressionCaches all;
  return all;
}
/// The same caches in the order they were made, with their kernels' names
/// (for arrayKernelRequests).
std::vector<std::pair<std::string, KernelCache *>> &cachesInOrder() {
  static std::vector<std::pair<std::string, KernelCache *>> all;
  return all;
}

} // namespace

KernelCache &arrayKernelCache(const ArrayExpression &expression) {
  auto &entries = caches()[expression.hash()];
  for (auto &[known, cache] : entries)
    if (known == expression)
      return *cache;
  const char *name = expression.form == ArrayExpression::Form::Map
                         ? "array_map"
                         : "array_reduce";
  CompileOptions options;
  options.reassociateFolds = reassociatesFolds(expression);
  auto cache = std::make_unique<KernelCache>(
      [expression, name] { return *arrayKernel(expression, name); },
      options);
  cachesInOrder().emplace_back(name, cache.get());
  entries.emplace_back(expression, std::move(cache));
  return *entries.back().second;
}

std::vector<std::pair<std::string, KernelRequest>> arrayKernelRequests() {
  std::vector<std::pair<std::string, KernelRequest>> out;
  for (const auto &[name, cache] : cachesInOrder())
    for (KernelRequest &request : cache->requests())
      out.emplace_back(name, std::move(request));
  return out;
}

CacheStatistics arrayKernelStatistics(int &expressions) {
  CacheStatistics total;
  expressions = 0;
  for (const auto &[hash, entries] : caches())
    for (const auto &[expression, cache] : entries) {
      ++expressions;
      total.compiles += cache->statistics().compiles;
      total.memoryHits += cache->statistics().memoryHits;
      total.diskHits += cache->statistics().diskHits;
      total.rebuilds += cache->statistics().rebuilds;
    }
  return total;
}

} // namespace spirjit::launch
