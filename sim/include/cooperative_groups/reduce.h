// The CPU simulator's stand-in for <cooperative_groups/reduce.h>: cg::reduce(group, value, op)
// over a thread_block_tile<N> or a coalesced_group, with CUDA's operators (cg::plus, less,
// greater, bit_and, bit_or, bit_xor) or any callable. It combines the values in the order CUDA's
// own header does (a butterfly of shfl_xor over a tile or a whole warp; over a partial
// coalesced group an inclusive scan, read from its last lane), so a floating-point sum is the
// GPU's to the bit; integers give what the GPU's __reduce_*_sync give. Its shuffles are the
// simulator's, checked and reported as __shfl_xor_sync / __shfl_sync at the line of the
// cg::reduce call. Over a tile of several warps, as CUDA: each warp's butterfly, then the same
// butterfly over the warps' results (gathered by the tile's shfl), each warp taking its own
// lane's. Not here: reduce_update_async, reduce_store_async (see sim/README.md).
#pragma once

#include <cooperative_groups.h>

#ifdef HISTO_SIM_TCB
#pragma clang attribute push(HISTO_SIM_DEVICE_API, apply_to = function)
#endif

namespace cooperative_groups {

template <typename T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <typename T>
struct less {
  T operator()(T a, T b) const { return (b < a) ? b : a; }
};
template <typename T>
struct greater {
  T operator()(T a, T b) const { return (a < b) ? b : a; }
};
template <typename T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <typename T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <typename T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

namespace details {
// The operand type of one of the operators above (void for any other callable).
template <typename Op>
struct operator_input {
  using type = void;
};
template <template <class> class Op, typename T>
struct operator_input<Op<T>> {
  using type = std::conditional_t<std::is_same<Op<T>, plus<T>>::value || std::is_same<Op<T>, less<T>>::value ||
                                      std::is_same<Op<T>, greater<T>>::value || std::is_same<Op<T>, bit_and<T>>::value ||
                                      std::is_same<Op<T>, bit_or<T>>::value || std::is_same<Op<T>, bit_xor<T>>::value,
                                  T, void>;
};
template <typename Op, typename T>
constexpr bool operator_fits() {
  using In = typename operator_input<std::decay_t<Op>>::type;
  return std::is_void<In>::value || std::is_same<In, std::decay_t<T>>::value;
}
}  // namespace details

template <unsigned N, typename P, typename T, typename Op>
auto reduce(const thread_block_tile<N, P>& group, const T& value, Op&& op, const char* file = __builtin_FILE(),
            int line = __builtin_LINE()) -> std::decay_t<decltype(op(value, value))> {
  static_assert(details::operator_fits<Op, T>(), "Operator and argument types differ");
  using R = std::decay_t<decltype(op(value, value))>;
  if constexpr (N > 32) {
    static_assert(sizeof(R) <= 8, "Collectives with tiles larger than 32 threads are limited to types of up to 8 bytes");
    constexpr unsigned kWarps = N / 32;
    const R mine = reduce(tiled_partition<32>(group), value, op, file, line);
    R out[kWarps], next[kWarps];
    for (unsigned w = 0; w < kWarps; ++w) out[w] = group.shfl(mine, w * 32, file, line);
    for (unsigned mask = kWarps >> 1; mask > 0; mask >>= 1) {
      for (unsigned w = 0; w < kWarps; ++w) next[w] = op(out[w], out[w ^ mask]);
      for (unsigned w = 0; w < kWarps; ++w) out[w] = next[w];
    }
    return out[group.thread_rank() / 32];
  } else {
    R out = value;
    for (unsigned mask = N >> 1; mask > 0; mask >>= 1) out = op(out, group.shfl_xor(out, mask, file, line));
    return out;
  }
}

template <typename T, typename Op>
auto reduce(const coalesced_group& group, const T& value, Op&& op, const char* file = __builtin_FILE(),
            int line = __builtin_LINE()) -> std::decay_t<decltype(op(value, value))> {
  static_assert(details::operator_fits<Op, T>(), "Operator and argument types differ");
  std::decay_t<decltype(op(value, value))> out = value;
  const unsigned mask = group.get_mask();
  if (group.size() == 32) {
    for (unsigned m = 16; m > 0; m >>= 1)
      out = op(out, details::shuffle(::histo_sim::WarpOp::shfl_xor, mask, out, int(m), 32, file, line));
    return out;
  }
  // An inclusive scan over the members (rank r adds the value of rank r - i, i = 1, 2, 4, ...),
  // whose last member then holds the whole.
  const unsigned rank = group.thread_rank();
  for (unsigned i = 1; i < group.size(); i <<= 1) {
    const int src = i <= rank ? details::lane_of_rank(mask, rank - i) : int(details::lane());
    const auto other = details::shuffle(::histo_sim::WarpOp::shfl, mask, out, src, 32, file, line);
    if (i <= rank) out = op(out, other);
  }
  return details::shuffle(::histo_sim::WarpOp::shfl, mask, out, 31 - __builtin_clz(mask), 32, file, line);
}

}  // namespace cooperative_groups

#ifdef HISTO_SIM_TCB
#pragma clang attribute pop
#endif
