// Packet loss for scripts/netcluster on kernels without sch_netem: a tc classifier (BPF, direct
// action, on the clsact egress hook of a namespace's link) that drops each packet with probability
// DROP_PER_MILLION / 10^6, independently, as netem's `loss P%` does. Built by the script with
// `clang -target bpf -DDROP_PER_MILLION=N`.
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

#ifndef DROP_PER_MILLION
#error "build with -DDROP_PER_MILLION=N"
#endif

static unsigned int (*get_prandom_u32)(void) = (void *)BPF_FUNC_get_prandom_u32;

__attribute__((section("classifier"), used)) int drop_at_random(struct __sk_buff *skb) {
  (void)skb;
  return get_prandom_u32() % 1000000u < DROP_PER_MILLION ? TC_ACT_SHOT : TC_ACT_OK;
}

char loom_license[] __attribute__((section("license"), used)) = "GPL";
