// The C side of hcipico's Linux layer: the libbluetooth headers, plus the few things Swift cannot
// import from them (function-like ioctl macros, variadic ioctl), each as a `cbluez_` inline function.
#ifndef CBLUEZ_SHIM_H
#define CBLUEZ_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/l2cap.h>

// The layouts the Swift side writes and reads; a header update that moved a field fails the build here.
_Static_assert(sizeof(bdaddr_t) == 6, "bdaddr_t is six octets");
_Static_assert(sizeof(struct sockaddr_l2) == 14, "sockaddr_l2 is 14 bytes");
_Static_assert(offsetof(struct sockaddr_l2, l2_psm) == 2, "sockaddr_l2.l2_psm at 2");
_Static_assert(offsetof(struct sockaddr_l2, l2_bdaddr) == 4, "sockaddr_l2.l2_bdaddr at 4");
_Static_assert(offsetof(struct sockaddr_l2, l2_cid) == 10, "sockaddr_l2.l2_cid at 10");
_Static_assert(offsetof(struct sockaddr_l2, l2_bdaddr_type) == 12, "sockaddr_l2.l2_bdaddr_type at 12");
_Static_assert(sizeof(struct sockaddr_hci) == 6, "sockaddr_hci is 6 bytes");
_Static_assert(sizeof(struct hci_filter) == 16, "hci_filter is 16 bytes");
_Static_assert(sizeof(struct l2cap_conninfo) == 6, "l2cap_conninfo is 6 bytes");
_Static_assert(sizeof(struct bt_security) == 2, "bt_security is 2 bytes");
_Static_assert(sizeof(struct hci_dev_req) == 8, "hci_dev_req is 8 bytes");
_Static_assert(offsetof(struct hci_dev_list_req, dev_req) == 4, "hci_dev_list_req.dev_req at 4");
_Static_assert(offsetof(struct hci_dev_info, flags) == 16, "hci_dev_info.flags at 16");

/// `HCIGETDEVLIST` (`_IOR('H', 210, int)`).
static inline unsigned long cbluez_hcigetdevlist(void) { return HCIGETDEVLIST; }
/// `HCIGETDEVINFO` (`_IOR('H', 211, int)`).
static inline unsigned long cbluez_hcigetdevinfo(void) { return HCIGETDEVINFO; }

/// `HCIGETCONNINFO` (`_IOR('H', 213, int)`): one connection of a bound adapter, by address and link type.
static inline unsigned long cbluez_hcigetconninfo(void) { return HCIGETCONNINFO; }
/// Where the kernel writes the answer of `HCIGETCONNINFO`: after the request's address and link type.
static inline size_t cbluez_offsetof_hci_conn_info_req_conn_info(void) {
    return offsetof(struct hci_conn_info_req, conn_info);
}
_Static_assert(offsetof(struct hci_conn_info, handle) == 0, "hci_conn_info.handle at 0");

/// `HCIDEVUP` (`_IOW('H', 201, int)`): powers an adapter on; the argument is its index, by value.
static inline unsigned long cbluez_hcidevup(void) { return HCIDEVUP; }
/// `HCIDEVDOWN` (`_IOW('H', 202, int)`): powers an adapter off.
static inline unsigned long cbluez_hcidevdown(void) { return HCIDEVDOWN; }

/// `ioctl(2)` with an integer argument passed by value (`HCIDEVUP`, `HCIDEVDOWN`).
static inline int cbluez_ioctl_value(int fd, unsigned long request, unsigned long value) {
    return ioctl(fd, request, value);
}

/// `ioctl(2)` with a pointer argument (the C function is variadic, which Swift cannot call).
static inline int cbluez_ioctl(int fd, unsigned long request, void *argument) {
    return ioctl(fd, request, argument);
}

/// `fcntl(2)` with an integer argument.
static inline int cbluez_fcntl(int fd, int command, int argument) { return fcntl(fd, command, argument); }

/// `open(2)` with flags and no mode.
static inline int cbluez_open(const char *path, int flags) { return open(path, flags); }

/// `open(2)` with a mode, for files it may create (the C function is variadic).
static inline int cbluez_open_mode(const char *path, int flags, unsigned int mode) { return open(path, flags, mode); }

/// The thread's `errno` (a macro over a thread-local in glibc).
static inline int cbluez_errno(void) { return errno; }

/// C's own `sizeof` of the structures the Swift side lays out, for the layout tests.
static inline size_t cbluez_sizeof_sockaddr_l2(void) { return sizeof(struct sockaddr_l2); }
static inline size_t cbluez_sizeof_sockaddr_hci(void) { return sizeof(struct sockaddr_hci); }
static inline size_t cbluez_sizeof_hci_filter(void) { return sizeof(struct hci_filter); }
static inline size_t cbluez_sizeof_l2cap_conninfo(void) { return sizeof(struct l2cap_conninfo); }
static inline size_t cbluez_sizeof_bt_security(void) { return sizeof(struct bt_security); }
static inline size_t cbluez_sizeof_hci_dev_info(void) { return sizeof(struct hci_dev_info); }
static inline size_t cbluez_offsetof_sockaddr_l2_cid(void) { return offsetof(struct sockaddr_l2, l2_cid); }
static inline size_t cbluez_offsetof_sockaddr_l2_bdaddr_type(void) {
    return offsetof(struct sockaddr_l2, l2_bdaddr_type);
}

// recvmmsg(2). Swift's Glibc module is built without _GNU_SOURCE, so neither the function nor
// `struct mmsghdr` is visible to Swift: the kernel's layout is declared here, and glibc's `recvmmsg`
// is reached under a name of our own.
struct cbluez_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
extern int cbluez_recvmmsg_symbol(int fd, struct cbluez_mmsghdr *vector, unsigned int length, int flags,
                                  struct timespec *timeout) __asm__("recvmmsg");

/// The most messages `cbluez_recv_batch` takes in one call.
#define CBLUEZ_RECV_BATCH_LIMIT 32

/// One `recvmmsg` into up to `count` (at most CBLUEZ_RECV_BATCH_LIMIT) slots of `slot_size` bytes laid
/// end to end at `buffer`; each message's length goes to `lengths`. The message count, or -1 and errno.
static inline int cbluez_recv_batch(int fd, void *buffer, size_t slot_size, unsigned int count,
                                    unsigned int *lengths, int flags) {
    struct iovec pieces[CBLUEZ_RECV_BATCH_LIMIT];
    struct cbluez_mmsghdr headers[CBLUEZ_RECV_BATCH_LIMIT];
    if (count > CBLUEZ_RECV_BATCH_LIMIT) count = CBLUEZ_RECV_BATCH_LIMIT;
    for (unsigned int index = 0; index < count; index++) {
        pieces[index].iov_base = (char *)buffer + index * slot_size;
        pieces[index].iov_len = slot_size;
        headers[index] = (struct cbluez_mmsghdr){.msg_hdr = {.msg_iov = &pieces[index], .msg_iovlen = 1}};
    }
    int received = cbluez_recvmmsg_symbol(fd, headers, count, flags, NULL);
    for (int index = 0; index < received; index++) lengths[index] = headers[index].msg_len;
    return received;
}

#endif
