// Delay for scripts/netcluster on kernels without sch_netem: holds every packet a namespace sends
// into the cluster's subnet for a fixed time, then sends it on, as netem's `delay D` does on the
// link's egress. The namespace routes its packets to the subnet into a TUN device; this program
// reads each one, keeps it in a FIFO until DELAY microseconds after it arrived, and sends it as an
// Ethernet frame to its destination's MAC (the neighbour entry netcluster made) through a packet
// socket on the namespace's link, so that it leaves through the link's egress as the kernel's own
// packets do: tbf shapes the rate and the loss classifier drops.
// The TUN device takes TCP's segmentation offload, as the link does: the kernel hands over up to
// 64 KiB of a stream at once, with the virtio-net header that says how to cut it into MTU-sized
// segments, and the link cuts them (at tbf, which meters every segment). One read and one send per
// 64 KiB instead of per 1.5 KiB keeps this relay's CPU, which the ranks on the same cores pay, near
// the kernel's own. With --per-packet no offload is taken (every packet at most the MTU), so that
// the loss classifier drops single packets, not a whole 64 KiB burst. A full FIFO drops, as netem's
// limit does.
// Usage (inside the namespace, as root): netcluster-delay TUN LINK DELAY_US [--per-packet].
// Ends on SIGTERM.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { kSlots = 1 << 12, kPacketBytes = 65536, kSendBuffer = 64 << 20 };  // 256 MiB of slots

struct Packet {
  long long due_ns;
  int bytes;  // of data
  struct virtio_net_hdr offload;
  unsigned char data[kPacketBytes];  // the IPv4 packet
};

struct Link {
  int sender;  // packet socket bound to nothing: sends only
  int index;
  unsigned char mac[ETH_ALEN];
  const char *name;
  unsigned char known[256];  // destination 10.77.0.X: its MAC looked up already
  unsigned char neighbours[256][ETH_ALEN];
};

static struct Packet fifo[kSlots];

static void die(const char *what) {
  fprintf(stderr, "netcluster-delay: %s: %s\n", what, strerror(errno));
  exit(1);
}

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int open_tun(const char *name, int per_packet) {
  struct ifreq request;
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
  if (fd < 0) die("/dev/net/tun");
  memset(&request, 0, sizeof request);
  request.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;  // IPv4 packets after a virtio-net header
  strncpy(request.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &request) < 0) die(name);
  unsigned long offloads = per_packet ? 0 : TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
  if (ioctl(fd, TUNSETOFFLOAD, offloads) < 0) die("TUNSETOFFLOAD");
  return fd;
}

static void open_link(struct Link *link, const char *name) {
  struct ifreq request;
  int buffer = kSendBuffer, with_offload = 1;
  memset(link, 0, sizeof *link);
  link->name = name;
  // Protocol 0: this socket receives nothing. Its frames carry the virtio-net header's offload.
  link->sender = socket(AF_PACKET, SOCK_RAW, 0);
  if (link->sender < 0) die("packet socket");
  if (setsockopt(link->sender, SOL_PACKET, PACKET_VNET_HDR, &with_offload, sizeof with_offload) < 0)
    die("PACKET_VNET_HDR");
  // Room for what tbf may queue, so a slow link drops at tbf, not by blocking this loop.
  if (setsockopt(link->sender, SOL_SOCKET, SO_SNDBUFFORCE, &buffer, sizeof buffer) < 0) die("SO_SNDBUFFORCE");
  memset(&request, 0, sizeof request);
  strncpy(request.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(link->sender, SIOCGIFINDEX, &request) < 0) die(name);
  link->index = request.ifr_ifindex;
  if (ioctl(link->sender, SIOCGIFHWADDR, &request) < 0) die(name);
  memcpy(link->mac, request.ifr_hwaddr.sa_data, ETH_ALEN);
}

// The MAC of `address` from the link's neighbour table (netcluster makes the entries up front);
// 0 where there is none.
static const unsigned char *neighbour(struct Link *link, in_addr_t address) {
  unsigned char last = ntohl(address) & 0xff;
  if (link->known[last]) return link->neighbours[last];
  struct arpreq request;
  memset(&request, 0, sizeof request);
  struct sockaddr_in *ip = (struct sockaddr_in *)&request.arp_pa;
  ip->sin_family = AF_INET;
  ip->sin_addr.s_addr = address;
  strncpy(request.arp_dev, link->name, sizeof request.arp_dev - 1);
  if (ioctl(link->sender, SIOCGARP, &request) < 0 || !(request.arp_flags & ATF_COM)) {
    fprintf(stderr, "netcluster-delay: no neighbour entry for %s on %s: packet dropped\n",
            inet_ntoa(ip->sin_addr), link->name);
    return 0;
  }
  memcpy(link->neighbours[last], request.arp_ha.sa_data, ETH_ALEN);
  link->known[last] = 1;
  return link->neighbours[last];
}

static void send_packet(struct Link *link, struct Packet *packet) {
  const struct iphdr *header = (const struct iphdr *)packet->data;
  if (packet->bytes < (int)sizeof *header || header->version != 4) return;  // not IPv4: not ours
  const unsigned char *to = neighbour(link, header->daddr);
  if (!to) return;
  struct ethhdr frame;
  memcpy(frame.h_dest, to, ETH_ALEN);
  memcpy(frame.h_source, link->mac, ETH_ALEN);
  frame.h_proto = htons(ETH_P_IP);
  // The header's offsets count from the frame's start, not the IP packet's, as the TUN device's do.
  struct virtio_net_hdr offload = packet->offload;
  if (offload.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) offload.csum_start += ETH_HLEN;
  if (offload.gso_type != VIRTIO_NET_HDR_GSO_NONE) offload.hdr_len += ETH_HLEN;
  struct iovec parts[3] = {{&offload, sizeof offload}, {&frame, sizeof frame}, {packet->data, packet->bytes}};
  struct sockaddr_ll address = {.sll_family = AF_PACKET, .sll_ifindex = link->index};
  struct msghdr message = {.msg_name = &address, .msg_namelen = sizeof address, .msg_iov = parts, .msg_iovlen = 3};
  // A failure (the link's queue full) loses the packet, as a full queue on a wire would.
  (void)sendmsg(link->sender, &message, 0);
}

int main(int argc, char **argv) {
  if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "--per-packet") != 0)) {
    fprintf(stderr, "usage: netcluster-delay TUN LINK DELAY_US [--per-packet]\n");
    return 2;
  }
  const long long delay_ns = atoll(argv[3]) * 1000LL;
  const int tun = open_tun(argv[1], argc == 5);
  static struct Link link;
  open_link(&link, argv[2]);
  unsigned long long head = 0, tail = 0;  // fifo[head % kSlots] is the oldest packet held
  prctl(PR_SET_TIMERSLACK, 1UL);          // wake when the next packet is due, not up to 50 us later
  for (;;) {
    long long now = now_ns();
    while (head != tail && fifo[head % kSlots].due_ns <= now) send_packet(&link, &fifo[head++ % kSlots]);
    struct pollfd ready = {.fd = tun, .events = tail - head < kSlots ? POLLIN : 0};
    struct timespec wait, *timeout = NULL;
    if (head != tail) {
      long long left = fifo[head % kSlots].due_ns - now;
      wait.tv_sec = left / 1000000000LL;
      wait.tv_nsec = left % 1000000000LL;
      timeout = &wait;
    }
    if (ppoll(&ready, 1, timeout, NULL) < 0 && errno != EINTR) die("ppoll");
    if (!(ready.revents & POLLIN)) continue;
    now = now_ns();
    while (tail - head < kSlots) {
      struct Packet *packet = &fifo[tail % kSlots];
      struct iovec parts[2] = {{&packet->offload, sizeof packet->offload}, {packet->data, kPacketBytes}};
      ssize_t bytes = readv(tun, parts, 2);
      if (bytes < 0) {
        if (errno == EAGAIN || errno == EINTR) break;
        die("read");
      }
      packet->bytes = (int)bytes - (int)sizeof packet->offload;
      packet->due_ns = now + delay_ns;
      ++tail;
    }
  }
}
