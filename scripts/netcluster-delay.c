// Delay for scripts/netcluster on kernels without sch_netem: holds every packet a namespace sends
// into the cluster's subnet for a fixed time, then sends it on, as netem's `delay D` does on the
// link's egress. The namespace routes its packets to the subnet (those without mark 1) into a TUN
// device; this program reads each one, keeps it in a FIFO until DELAY microseconds after it arrived,
// and writes it unchanged through a raw IP socket whose mark 1 routes it out of the namespace's link
// (where tbf shapes the rate and the loss classifier drops). A full FIFO drops, as netem's limit.
// Usage (inside the namespace, as root): netcluster-delay TUN_NAME DELAY_US. Ends on SIGTERM.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kSlots = 1 << 12, kPacketBytes = 65536, kMark = 1, kSendBuffer = 64 << 20 };  // 256 MiB of slots

struct Packet {
  long long due_ns;
  int bytes;
  unsigned char data[kPacketBytes];
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

static int open_tun(const char *name) {
  struct ifreq request;
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
  if (fd < 0) die("/dev/net/tun");
  memset(&request, 0, sizeof request);
  request.ifr_flags = IFF_TUN | IFF_NO_PI;  // raw IPv4 packets, no offloads: each at most the MTU
  strncpy(request.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &request) < 0) die(name);
  return fd;
}

static int open_sender(void) {
  int fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);  // IP_HDRINCL: packets go out as read
  int mark = kMark, buffer = kSendBuffer;
  if (fd < 0) die("raw socket");
  if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof mark) < 0) die("SO_MARK");
  // Room for what tbf may queue, so a slow link drops at tbf, not by blocking this loop.
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buffer, sizeof buffer) < 0) die("SO_SNDBUFFORCE");
  return fd;
}

static void send_packet(int sender, const struct Packet *packet) {
  const struct iphdr *header = (const struct iphdr *)packet->data;
  struct sockaddr_in to;
  if (packet->bytes < (int)sizeof *header || header->version != 4) return;  // not IPv4: not ours
  memset(&to, 0, sizeof to);
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = header->daddr;
  // A failure (the link's queue full) loses the packet, as a full queue on a wire would.
  (void)sendto(sender, packet->data, packet->bytes, 0, (const struct sockaddr *)&to, sizeof to);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: netcluster-delay TUN_NAME DELAY_US\n");
    return 2;
  }
  const long long delay_ns = atoll(argv[2]) * 1000LL;
  const int tun = open_tun(argv[1]), sender = open_sender();
  unsigned long long head = 0, tail = 0;  // fifo[head % kSlots] is the oldest packet held
  prctl(PR_SET_TIMERSLACK, 1UL);          // wake when the next packet is due, not up to 50 us later
  for (;;) {
    long long now = now_ns();
    while (head != tail && fifo[head % kSlots].due_ns <= now) send_packet(sender, &fifo[head++ % kSlots]);
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
      ssize_t bytes = read(tun, packet->data, kPacketBytes);
      if (bytes < 0) {
        if (errno == EAGAIN || errno == EINTR) break;
        die("read");
      }
      packet->bytes = (int)bytes;
      packet->due_ns = now + delay_ns;
      ++tail;
    }
  }
}
