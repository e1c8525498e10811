/*
 * att_rtt: the smallest honest kernel-socket BLE central, as a reference point.
 *
 * Connects an L2CAP LE socket (SOCK_SEQPACKET, PSM 0, CID 4 = ATT) to the test peer,
 * exchanges the ATT MTU, discovers the Laird VSP service and its TX/RX characteristics by
 * UUID, enables TX notifications, then times N write -> notification round trips, first
 * with Write Request and then with Write Command. The peer must echo (picopeer.py
 * --mode echo), or be a Pico (--pico: each round trip is `t\n` -> reply ending `*\n`).
 *
 * Prints human-readable lines and one machine-readable line:
 *   ATT-RTT {"connect_ms":...,"mtu":...,"write_req":{"median_ms":..,"p95_ms":..,
 *            "cpu_us_per_rtt":..,"stat_cpu_us_per_rtt":..},"write_cmd":{...}}
 * CPU time per round trip comes from CLOCK_PROCESS_CPUTIME_ID (ns resolution) and from
 * /proc/self/stat utime+stime (clock ticks). Exit status 0 = every step passed.
 *
 *   att_rtt [-n ROUNDS] [-p] [-P] [-t TIMEOUT_S] [--pico] [ADDRESS]
 *     ADDRESS defaults to $BLE_PEER or F0:11:22:33:44:55; -p: public address (default random)
 */
#define _GNU_SOURCE
#include <bluetooth/bluetooth.h>
#include <bluetooth/l2cap.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define ATT_CID 4
#define ATT_ERROR_RSP 0x01
#define ATT_MTU_REQ 0x02
#define ATT_MTU_RSP 0x03
#define ATT_FIND_INFO_REQ 0x04
#define ATT_FIND_INFO_RSP 0x05
#define ATT_FIND_BY_TYPE_REQ 0x06
#define ATT_FIND_BY_TYPE_RSP 0x07
#define ATT_READ_BY_TYPE_REQ 0x08
#define ATT_READ_BY_TYPE_RSP 0x09
#define ATT_WRITE_REQ 0x12
#define ATT_WRITE_RSP 0x13
#define ATT_NOTIFICATION 0x1B
#define ATT_WRITE_CMD 0x52
#define WANTED_MTU 247

/* 128-bit UUIDs in ATT (little-endian) byte order. */
static const uint8_t VSP_SERVICE[16] = {0x7c, 0x16, 0xa5, 0x5e, 0xba, 0x11, 0xcb, 0x92,
                                        0x0c, 0x49, 0x7f, 0xb8, 0x01, 0x11, 0x9a, 0x56};
static const uint8_t VSP_TX[16] = {0x7c, 0x16, 0xa5, 0x5e, 0xba, 0x11, 0xcb, 0x92,
                                   0x0c, 0x49, 0x7f, 0xb8, 0x00, 0x20, 0x9a, 0x56};
static const uint8_t VSP_RX[16] = {0x7c, 0x16, 0xa5, 0x5e, 0xba, 0x11, 0xcb, 0x92,
                                   0x0c, 0x49, 0x7f, 0xb8, 0x01, 0x20, 0x9a, 0x56};

static int sock = -1;
static int timeout_ms = 5000;
static uint8_t pdu[512];
static uint8_t notification[512];
static ssize_t notification_len = -1;
static uint16_t tx_value;

static double now_ms(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what) {
    printf("FAIL att_rtt: %s (%s)\n", what, errno ? strerror(errno) : "protocol");
    exit(1);
}

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static void put16(uint8_t *p, uint16_t v) { p[0] = v & 0xff; p[1] = v >> 8; }

static void send_pdu(const uint8_t *data, size_t len) {
    if (send(sock, data, len, 0) != (ssize_t)len) die("send");
}

/* Receives PDUs until one with `opcode` (or an Error Response) arrives; notifications from
 * TX are kept in `notification`. Returns the PDU length, or -1 on Error Response. */
static ssize_t await_pdu(uint8_t opcode) {
    for (;;) {
        struct pollfd pfd = {.fd = sock, .events = POLLIN};
        int ready = poll(&pfd, 1, timeout_ms);
        if (ready == 0) { errno = ETIMEDOUT; die("waiting for an ATT PDU"); }
        if (ready < 0) { if (errno == EINTR) continue; die("poll"); }
        ssize_t len = recv(sock, pdu, sizeof pdu, 0);
        if (len <= 0) { if (len == 0) errno = ECONNRESET; die("recv"); }
        if (pdu[0] == ATT_NOTIFICATION && len >= 3) {
            if (get16(pdu + 1) == tx_value) {
                memcpy(notification, pdu + 3, (size_t)len - 3);
                notification_len = len - 3;
            }
            if (opcode == ATT_NOTIFICATION) return len;
            continue;
        }
        if (pdu[0] == opcode) return len;
        if (pdu[0] == ATT_ERROR_RSP) return -1;
        fprintf(stderr, "att_rtt: ignoring ATT opcode 0x%02x\n", pdu[0]);
    }
}

static void connect_le(const char *address, uint8_t address_type) {
    struct sockaddr_l2 local = {0}, remote = {0};
    sock = socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP);
    if (sock < 0) die("socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP)");
    local.l2_family = AF_BLUETOOTH;
    local.l2_cid = htobs(ATT_CID);
    local.l2_bdaddr_type = BDADDR_LE_PUBLIC;
    if (bind(sock, (struct sockaddr *)&local, sizeof local) < 0) die("bind");
    remote.l2_family = AF_BLUETOOTH;
    remote.l2_cid = htobs(ATT_CID);
    remote.l2_bdaddr_type = address_type;
    if (str2ba(address, &remote.l2_bdaddr) < 0) die("address is not six hex octets");
    fcntl(sock, F_SETFL, O_NONBLOCK);
    if (connect(sock, (struct sockaddr *)&remote, sizeof remote) < 0 && errno != EINPROGRESS) die("connect");
    struct pollfd pfd = {.fd = sock, .events = POLLOUT};
    if (poll(&pfd, 1, 30000) != 1) { errno = ETIMEDOUT; die("connect"); }
    int error = 0;
    socklen_t size = sizeof error;
    getsockopt(sock, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error) { errno = error; die("connect"); }
    fcntl(sock, F_SETFL, 0);
}

static uint16_t exchange_mtu(void) {
    uint8_t req[3] = {ATT_MTU_REQ};
    put16(req + 1, WANTED_MTU);
    send_pdu(req, sizeof req);
    if (await_pdu(ATT_MTU_RSP) < 3) die("Exchange MTU");
    uint16_t server = get16(pdu + 1);
    return server < WANTED_MTU ? server : WANTED_MTU;
}

/* Finds the VSP service range, TX/RX value handles and TX's CCCD. */
static void discover(uint16_t *rx_value, uint16_t *tx_cccd) {
    uint8_t req[23] = {ATT_FIND_BY_TYPE_REQ};
    put16(req + 1, 0x0001);
    put16(req + 3, 0xffff);
    put16(req + 5, 0x2800);
    memcpy(req + 7, VSP_SERVICE, 16);
    send_pdu(req, 23);
    if (await_pdu(ATT_FIND_BY_TYPE_RSP) < 5) die("VSP service not found");
    uint16_t start = get16(pdu + 1), end = get16(pdu + 3);
    printf("GATT: VSP service 0x%04x-0x%04x\n", start, end);

    uint16_t next_after_tx = end, cursor = start;
    *rx_value = 0;
    while (cursor <= end) {
        uint8_t rbt[7] = {ATT_READ_BY_TYPE_REQ};
        put16(rbt + 1, cursor);
        put16(rbt + 3, end);
        put16(rbt + 5, 0x2803);
        send_pdu(rbt, sizeof rbt);
        ssize_t len = await_pdu(ATT_READ_BY_TYPE_RSP);
        if (len < 0) break; /* Attribute Not Found ends the search */
        uint8_t entry = pdu[1];
        if (entry < 7) die("Read By Type entry too short");
        uint16_t last = cursor;
        for (ssize_t at = 2; at + entry <= len; at += entry) {
            uint16_t declaration = get16(pdu + at), value = get16(pdu + at + 3);
            if (tx_value && !next_after_tx) next_after_tx = declaration - 1;
            if (entry == 21 && !memcmp(pdu + at + 5, VSP_TX, 16)) { tx_value = value; next_after_tx = 0; }
            if (entry == 21 && !memcmp(pdu + at + 5, VSP_RX, 16)) *rx_value = value;
            last = declaration;
        }
        if (last == 0xffff) break;
        cursor = last + 1;
    }
    if (!next_after_tx) next_after_tx = end;
    if (!tx_value || !*rx_value) die("VSP TX/RX characteristics not found");

    uint8_t fi[5] = {ATT_FIND_INFO_REQ};
    put16(fi + 1, tx_value + 1);
    put16(fi + 3, next_after_tx);
    send_pdu(fi, sizeof fi);
    ssize_t len = await_pdu(ATT_FIND_INFO_RSP);
    *tx_cccd = 0;
    for (ssize_t at = 2; len > 0 && pdu[1] == 1 && at + 4 <= len; at += 4)
        if (get16(pdu + at + 2) == 0x2902) *tx_cccd = get16(pdu + at);
    if (!*tx_cccd) die("TX has no CCCD");
    printf("GATT: tx=0x%04x cccd=0x%04x rx=0x%04x\n", tx_value, *tx_cccd, *rx_value);
}

static void write_request(uint16_t handle, const void *value, size_t len) {
    uint8_t req[3 + 244] = {ATT_WRITE_REQ};
    put16(req + 1, handle);
    memcpy(req + 3, value, len);
    send_pdu(req, 3 + len);
}

static double stat_cpu_ms(void) { /* utime + stime of this process, /proc/self/stat fields 14, 15 */
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f || !fgets(buf, sizeof buf, f)) die("read /proc/self/stat");
    fclose(f);
    char *p = strrchr(buf, ')');
    unsigned long utime = 0, stime = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        die("parse /proc/self/stat");
    return (utime + stime) * 1000.0 / sysconf(_SC_CLK_TCK);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One kind of round trip, N times; prints and appends a JSON object to `json`. */
static void round_trips(const char *kind, int with_response, int rounds, int pico, uint16_t rx, char *json) {
    double *samples = calloc((size_t)rounds, sizeof *samples);
    double cpu0 = now_ms(CLOCK_PROCESS_CPUTIME_ID), stat0 = stat_cpu_ms(), wall0 = now_ms(CLOCK_MONOTONIC);
    for (int i = 0; i < rounds; i++) {
        char payload[32];
        int len = pico ? snprintf(payload, sizeof payload, "t\n") : snprintf(payload, sizeof payload, "rtt %06d", i);
        double t0 = now_ms(CLOCK_MONOTONIC);
        notification_len = -1;
        uint8_t req[3 + 32] = {with_response ? ATT_WRITE_REQ : ATT_WRITE_CMD};
        put16(req + 1, rx);
        memcpy(req + 3, payload, (size_t)len);
        send_pdu(req, 3 + (size_t)len);
        if (with_response && await_pdu(ATT_WRITE_RSP) < 0) die("write request rejected");
        char reply[256];
        size_t have = 0;
        for (;;) {
            if (notification_len < 0) await_pdu(ATT_NOTIFICATION);
            if (notification_len < 0) continue;
            size_t n = (size_t)notification_len < sizeof reply - have ? (size_t)notification_len : sizeof reply - have;
            memcpy(reply + have, notification, n);
            have += n;
            notification_len = -1;
            if (!pico || (have >= 2 && !memcmp(reply + have - 2, "*\n", 2))) break;
        }
        samples[i] = now_ms(CLOCK_MONOTONIC) - t0;
        if (!pico && (have != (size_t)len || memcmp(reply, payload, have))) die("echo differs from what was written");
        if (pico && memcmp(reply, "tespico", 7)) die("version reply does not start with tespico");
    }
    double wall = now_ms(CLOCK_MONOTONIC) - wall0;
    double cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu0, stat = stat_cpu_ms() - stat0;
    qsort(samples, (size_t)rounds, sizeof *samples, compare);
    double median = rounds % 2 ? samples[rounds / 2] : (samples[rounds / 2 - 1] + samples[rounds / 2]) / 2;
    double p95 = samples[(int)(rounds * 0.95) < rounds ? (int)(rounds * 0.95) : rounds - 1];
    printf("RTT %s over %d: median %.3f ms p95 %.3f ms; CPU %.1f us/rtt (stat %.1f us/rtt); wall %.1f ms\n", kind,
           rounds, median, p95, cpu * 1e3 / rounds, stat * 1e3 / rounds, wall);
    sprintf(json + strlen(json),
            "\"%s\":{\"n\":%d,\"median_ms\":%.4f,\"p95_ms\":%.4f,\"min_ms\":%.4f,\"max_ms\":%.4f,"
            "\"cpu_us_per_rtt\":%.2f,\"stat_cpu_us_per_rtt\":%.2f,\"wall_ms\":%.2f}",
            kind, rounds, median, p95, samples[0], samples[rounds - 1], cpu * 1e3 / rounds, stat * 1e3 / rounds, wall);
    free(samples);
}

int main(int argc, char **argv) {
    const char *address = getenv("BLE_PEER") ? getenv("BLE_PEER") : "F0:11:22:33:44:55";
    uint8_t address_type = BDADDR_LE_RANDOM;
    int rounds = 200, pico = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc) timeout_ms = atoi(argv[++i]) * 1000;
        else if (!strcmp(argv[i], "-p")) address_type = BDADDR_LE_PUBLIC;
        else if (!strcmp(argv[i], "--pico")) pico = 1;
        else if (argv[i][0] != '-') address = argv[i];
        else { fprintf(stderr, "usage: att_rtt [-n ROUNDS] [-t TIMEOUT_S] [-p] [--pico] [ADDRESS]\n"); return 2; }
    }
    if (rounds < 1 || rounds > 100000 || timeout_ms < 1000) { fprintf(stderr, "att_rtt: bad -n or -t\n"); return 2; }
    setvbuf(stdout, NULL, _IOLBF, 0);

    double t0 = now_ms(CLOCK_MONOTONIC);
    connect_le(address, address_type);
    double connect_ms = now_ms(CLOCK_MONOTONIC) - t0;
    printf("L2CAP: ATT connected to %s in %.1f ms\n", address, connect_ms);
    t0 = now_ms(CLOCK_MONOTONIC);
    uint16_t mtu = exchange_mtu();
    printf("ATT: MTU %u (%.2f ms)\n", mtu, now_ms(CLOCK_MONOTONIC) - t0);
    uint16_t rx, cccd;
    t0 = now_ms(CLOCK_MONOTONIC);
    discover(&rx, &cccd);
    write_request(cccd, "\x01\x00", 2);
    if (await_pdu(ATT_WRITE_RSP) < 0) die("enabling notifications rejected");
    double discover_ms = now_ms(CLOCK_MONOTONIC) - t0;
    printf("GATT: discovery + subscribe %.2f ms\n", discover_ms);

    char json[1024];
    snprintf(json, sizeof json, "{\"peer\":\"%s\",\"mode\":\"%s\",\"connect_ms\":%.2f,\"mtu\":%u,\"discover_ms\":%.2f,",
             address, pico ? "pico" : "echo", connect_ms, mtu, discover_ms);
    round_trips("write_req", 1, rounds, pico, rx, json);
    strcat(json, ",");
    round_trips("write_cmd", 0, rounds, pico, rx, json);
    strcat(json, "}");
    printf("ATT-RTT %s\n", json);
    close(sock);
    printf("PASS att_rtt\n");
    return 0;
}
