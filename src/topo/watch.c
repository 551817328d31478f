/*
 * The watcher: a thread that refreshes the process's topology by itself when
 * memory comes or goes at run time (a device-DAX instance onlined as system
 * RAM by kmem, memory offlined, a CXL region made), so that a long-running
 * process sees it within seconds without asking (docs/DISCOVERY.md).
 *
 * It sleeps in poll() on the kernel's uevent socket (NETLINK_KOBJECT_UEVENT:
 * an event per memory block onlined or offlined, per node, dax or cxl
 * device added or removed) and on an eventfd that stops it. Uevents do not
 * reach a process in another network namespace than the init one (most
 * containers), so every 2 s it also compares /sys/devices/system/node/
 * has_memory (the nodes with memory online) and the drivers of the dax
 * devices (/sys/bus/dax/devices/<dev>/driver) with what it last saw. A burst
 * of events (one per 128 MiB block) is let settle for 250 ms, then one
 * refresh runs. Idle cost: one thread blocked in poll(), waking every 2 s
 * to read one sysfs file and a link per dax device.
 *
 * Started by the first topo_ensure, after a live discovery. A fork child
 * has none (topo_watch_forked) and starts none: the child of a
 * multithreaded process may start threads only after exec (POSIX; TSan
 * enforces it), and loci does not decide that for it. The child sees
 * changes through loci_topology_refresh(), or gets its own watcher after
 * loci_fini and a new discovery.
 */
#include "topo/topo_internal.h"
#include "dir.h"
#include "text_file.h"
#include "thread.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK_INTERVAL_MS 2000
#define SETTLE_MS 250
#define FINGERPRINT_MAX 2048

enum { IDLE, STARTING, RUNNING };
static _Atomic int state;
static pthread_t thread;
static int stop_fd = -1, uevent_fd = -1;

/* LOCI_TOPOLOGY_WATCH: 0 no thread; sysfs the sysfs check alone (as where
 * uevents do not arrive); anything else both. */
static const char *watch_mode(void)
{
    const char *v = getenv("LOCI_TOPOLOGY_WATCH");
    return v ? v : "";
}

/* The kernel's own uevents (group 1), not udev's rebroadcast. -1 where the
 * kernel or a sandbox refuses: the sysfs check alone then. */
static int open_uevents(void)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
    if (fd < 0)
        return -1;
    struct sockaddr_nl addr = {.nl_family = AF_NETLINK, .nl_groups = 1};
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A uevent is "ACTION@DEVPATH\0KEY=VALUE\0...": memory comes or goes with
 * events of these subsystems. */
static bool about_memory(const char *msg, size_t len)
{
    static const char *const subsystems[] = {"SUBSYSTEM=memory", "SUBSYSTEM=node", "SUBSYSTEM=dax",
                                             "SUBSYSTEM=cxl"};
    for (size_t off = 0; off < len; off += strlen(msg + off) + 1)
        for (size_t i = 0; i < sizeof subsystems / sizeof *subsystems; i++)
            if (strcmp(msg + off, subsystems[i]) == 0)
                return true;
    return false;
}

/* Read every pending uevent: whether one was about memory. */
static bool drain_uevents(void)
{
    char msg[8192];
    bool relevant = false;
    ssize_t n;
    while ((n = recv(uevent_fd, msg, sizeof msg - 1, 0)) > 0) {
        msg[n] = '\0';
        relevant |= about_memory(msg, (size_t)n);
    }
    return relevant || (n < 0 && errno == ENOBUFS); /* events were lost: perhaps some about memory */
}

/* One dax device and its driver ("dax0.0=kmem;"), appended. */
static int add_dax_device(int dirfd, const char *dir, const char *entry, void *arg)
{
    char *buf = arg, link[256] = "";
    size_t used = strlen(buf);
    char path[512];
    snprintf(path, sizeof path, "%s/%s/driver", dir, entry);
    (void)dirfd;
    ssize_t n = readlink(path, link, sizeof link - 1);
    link[n > 0 ? n : 0] = '\0';
    const char *driver = strrchr(link, '/');
    snprintf(buf + used, FINGERPRINT_MAX - used, "%s=%s;", entry, driver ? driver + 1 : "");
    return 0;
}

/* What the sysfs check compares: the nodes with memory online, and each
 * dax device with its driver (device_dax: mappable; kmem: a node's memory). */
static void fingerprint(char *buf)
{
    text_first_line("/sys/devices/system/node/has_memory", buf, FINGERPRINT_MAX);
    const char *dax = "/sys/bus/dax/devices";
    int fd = open(dax, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        dir_each_entry(fd, dax, add_dax_device, buf);
        close(fd);
    }
}

/* poll() on the stop eventfd and the uevent socket: false when told to stop. */
static bool wait_for(int timeout_ms, bool *event)
{
    struct pollfd fds[2] = {{.fd = stop_fd, .events = POLLIN}, {.fd = uevent_fd, .events = POLLIN}};
    int n = poll(fds, uevent_fd >= 0 ? 2 : 1, timeout_ms);
    if (n > 0 && fds[0].revents)
        return false;
    *event = n > 0 && fds[1].revents && drain_uevents();
    return true;
}

static void *watch(void *arg)
{
    (void)arg;
    char seen[FINGERPRINT_MAX], now[FINGERPRINT_MAX];
    fingerprint(seen);
    for (;;) {
        bool event = false;
        if (!wait_for(CHECK_INTERVAL_MS, &event))
            return NULL;
        fingerprint(now);
        if (!event && strcmp(now, seen) == 0)
            continue;
        for (bool more = true; more;) /* let a burst settle */
            if (!wait_for(SETTLE_MS, &more))
                return NULL;
        int rc = topo_live_refresh(); /* (no topo_ensure: topo_retire stops this thread before the topology goes) */
        if (rc < 0)
            loci__log(LOCI_LOG_WARN, "memory came or went, but discovering the machine again failed: %s",
                      loci_last_error());
        fingerprint(seen);
    }
}

void topo_watch_start(void)
{
    bool pending = true;
    if (!atomic_compare_exchange_strong(&topo_watch_pending, &pending, false))
        return;
    int idle = IDLE;
    if (strcmp(watch_mode(), "0") == 0 || !atomic_compare_exchange_strong(&state, &idle, STARTING))
        return;
    stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    uevent_fd = strcmp(watch_mode(), "sysfs") == 0 ? -1 : open_uevents();
    int rc = stop_fd < 0 ? errno : thread_start_quiet(&thread, watch, NULL);
    if (rc != 0) {
        loci__log(LOCI_LOG_WARN, "no thread watches for memory coming or going at run time (%s): call "
                                 "loci_topology_refresh() to see such changes",
                  strerror(rc));
        if (stop_fd >= 0)
            close(stop_fd);
        if (uevent_fd >= 0)
            close(uevent_fd);
        stop_fd = uevent_fd = -1;
        atomic_store(&state, IDLE);
        return;
    }
    pthread_setname_np(thread, "loci-topo-watch");
    atomic_store(&state, RUNNING);
}

void topo_watch_stop(void)
{
    atomic_store(&topo_watch_pending, false);
    int running = RUNNING;
    if (!atomic_compare_exchange_strong(&state, &running, STARTING))
        return;
    uint64_t one = 1;
    if (write(stop_fd, &one, sizeof one) != sizeof one)
        loci__log(LOCI_LOG_WARN, "cannot wake the topology watcher: %s", strerror(errno));
    pthread_join(thread, NULL);
    close(stop_fd);
    if (uevent_fd >= 0)
        close(uevent_fd);
    stop_fd = uevent_fd = -1;
    atomic_store(&state, IDLE);
}

void topo_watch_forked(void)
{
    if (atomic_load(&state) != RUNNING)
        return;
    /* the thread stayed in the parent; its descriptors are the parent's too */
    close(stop_fd);
    if (uevent_fd >= 0)
        close(uevent_fd);
    stop_fd = uevent_fd = -1;
    atomic_store(&state, IDLE);
}
