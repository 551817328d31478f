/* Providers on this machine: NUMA policies as the kernel reports them,
 * move and purge, pinning, file tiers (0600 files that go away, refused
 * directories, ENOSPC), shm memfds mapped a second time, provider_for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "provider/provider.h"
#include "os/vm.h"
#include "support/resident.h"
#include "support/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <numaif.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY 5
#endif

#define MB (1u << 20)

static struct loci_target node0;

static int setup(void **state)
{
    memset(&node0, 0, sizeof node0);
    strcpy(node0.name, "dram0");
    node0.numa_node = 0;
    return 0;
}

static place_t place(place_policy_t policy)
{
    place_t p;
    memset(&p, 0, sizeof p);
    p.policy = policy;
    p.target = &node0;
    place_add_node(&p, 0);
    return p;
}

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* Policy of the mapping at p, as the kernel has it. */
static int policy_at(void *p, unsigned long *mask)
{
    int mode = -1;
    unsigned long m[PLACE_MAX_NODES / (8 * sizeof(unsigned long))] = {0};
    assert_int_equal(get_mempolicy(&mode, m, PLACE_MAX_NODES + 1, p, MPOL_F_ADDR), 0);
    if (mask)
        *mask = m[0];
    return mode;
}

/* move_pages(NULL nodes): each page's node in status; all must be on node 0. */
static void assert_pages_on_node0(void *p, size_t len)
{
    size_t n = len / page_size();
    void **pages = malloc(n * sizeof *pages);
    int *status = malloc(n * sizeof *status);
    for (size_t i = 0; i < n; i++)
        pages[i] = (char *)p + i * page_size();
    assert_int_equal(move_pages(0, n, pages, NULL, status, 0), 0);
    for (size_t i = 0; i < n; i++)
        if (status[i] != 0)
            fail_msg("page %zu of %p: status %d", i, p, status[i]);
    free(pages);
    free(status);
}

/* ------------------------------------------------------------------ numa -- */

static void numa_policies(void **state)
{
    struct {
        place_policy_t policy;
        int mode;
    } cases[] = {
        {PLACE_LOCAL, MPOL_DEFAULT},
        {PLACE_BIND, MPOL_BIND},
        {PLACE_PREFERRED, MPOL_PREFERRED}, /* one node: its huge pages stay there (vm.c) */
        {PLACE_INTERLEAVE, MPOL_INTERLEAVE},
        {PLACE_WEIGHTED_INTERLEAVE, vm_kernel_mode(PLACE_WEIGHTED_INTERLEAVE)},
    };
    /* this kernel (>= 5.15) has MPOL_PREFERRED_MANY for several nodes: the probe must find it */
    int many = vm_kernel_mode(PLACE_PREFERRED);
    assert_true(many == MPOL_PREFERRED_MANY || many == MPOL_PREFERRED);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        place_t pl = place(cases[i].policy);
        size_t align = i % 2 ? 2 * MB : page_size();
        char *p = provider_numa.alloc(&pl, 4 * MB, align);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % align, 0);
        for (size_t j = 0; j < 4 * MB; j++)
            if (p[j])
                fail_msg("fresh numa memory not zero");
        memset(p, 1, 4 * MB);
        unsigned long mask;
        int mode = policy_at(p + MB, &mask);
        assert_int_equal(mode, cases[i].mode);
        if (mode != MPOL_DEFAULT)
            assert_int_equal(mask & 1, 1);
        assert_pages_on_node0(p, 4 * MB);
        assert_int_equal(provider_numa.free(p, 4 * MB), 0);
    }
}

static void numa_simulated_places_nothing(void **state)
{
    place_t pl = place(PLACE_BIND);
    pl.simulated = true;
    place_add_node(&pl, 7); /* a node this machine does not have */
    char *p = provider_numa.alloc(&pl, MB, page_size());
    assert_non_null(p);
    assert_int_equal(policy_at(p, NULL), MPOL_DEFAULT);
    assert_int_equal(provider_numa.move->move(p, MB, &pl), 0);
    provider_numa.free(p, MB);
}

static void numa_bad_node_refused(void **state)
{
    place_t pl = place(PLACE_BIND);
    memset(pl.nodemask, 0, sizeof pl.nodemask);
    place_add_node(&pl, 900); /* no such node */
    errno = 0;
    assert_null(provider_numa.alloc(&pl, MB, page_size()));
    assert_non_null(strstr(loci_last_error(), "mbind"));
    assert_non_null(strstr(loci_last_error(), "900"));
    memset(pl.nodemask, 0, sizeof pl.nodemask);
    assert_null(provider_numa.alloc(&pl, MB, page_size()));
    assert_non_null(strstr(loci_last_error(), "empty"));
}

static void numa_move_and_purge(void **state)
{
    place_t local = place(PLACE_LOCAL), bind = place(PLACE_BIND);
    char *p = provider_numa.alloc(&local, 2 * MB, page_size());
    memset(p, 0x42, 2 * MB);
    assert_int_equal(provider_numa.move->move(p, 2 * MB, &bind), 0);
    assert_int_equal(policy_at(p, NULL), MPOL_BIND);
    assert_pages_on_node0(p, 2 * MB);
    assert_int_equal(p[MB], 0x42); /* same addresses, same bytes */
    assert_int_equal(resident_pages(p, 2 * MB), 2 * MB / page_size());
    assert_int_equal(provider_numa.purge(p, 2 * MB), 0);
    assert_int_equal(resident_pages(p, 2 * MB), 0);
    assert_int_equal(policy_at(p, NULL), MPOL_BIND); /* the policy stays */
    assert_int_equal(p[12345], 0);
    assert_int_equal(vm_populate(p, 2 * MB), 0);
    assert_int_equal(resident_pages(p, 2 * MB), 2 * MB / page_size());
    assert_int_equal(provider_numa.move->move(p, 2 * MB, &local), 0);
    provider_numa.free(p, 2 * MB);
}

static void numa_available(void **state)
{
    place_t bind = place(PLACE_BIND), local = place(PLACE_LOCAL);
    uint64_t free_bytes = 0;
    assert_int_equal(provider_numa.available(&bind, &free_bytes), 0);
    assert_true(free_bytes > 16 * MB);
    assert_int_equal(provider_numa.available(&local, &free_bytes), LOCI_ENOTSUP);
}

static void numa_pinned(void **state)
{
    place_t pl = place(PLACE_BIND);
    pl.pinned = true;
    char *p = provider_numa.alloc(&pl, MB, page_size());
    if (!p) /* no privilege here: the message must say what to change */
        assert_non_null(strstr(loci_last_error(), "RLIMIT_MEMLOCK"));
    else {
        assert_int_equal(resident_pages(p, MB), MB / page_size()); /* locked = faulted in */
        provider_numa.free(p, MB);
    }
}

/* In a child without CAP_IPC_LOCK and with RLIMIT_MEMLOCK at 0, pinning fails
 * with a message naming the limit. */
static void numa_pinned_refused(void **state)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct data[2];
        if (syscall(SYS_capget, &hdr, data) == 0) {
            data[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
            syscall(SYS_capset, &hdr, data);
        }
        struct rlimit rl = {0, 0};
        setrlimit(RLIMIT_MEMLOCK, &rl);
        place_t pl = place(PLACE_LOCAL);
        pl.pinned = true;
        void *p = provider_numa.alloc(&pl, MB, page_size());
        _exit(p == NULL && strstr(loci_last_error(), "RLIMIT_MEMLOCK") ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* ------------------------------------------------------------------ file -- */

static char tier[256];
static struct loci_target ssd;

static place_t file_place(const char *dir)
{
    place_t p;
    memset(&p, 0, sizeof p);
    memset(&ssd, 0, sizeof ssd);
    strcpy(ssd.name, "ssd0");
    ssd.numa_node = -1;
    ssd.kind = KIND_SSD;
    ssd.path = (char *)dir;
    p.target = &ssd;
    return p;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void make_tier(void)
{
    snprintf(tier, sizeof tier, "/tmp/loci-tier-XXXXXX");
    assert_non_null(mkdtemp(tier));
}

static void file_extents_are_private_files(void **state)
{
    make_tier();
    place_t pl = file_place(tier);
    char *p = provider_file.alloc(&pl, 2 * MB, 2 * MB);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % (2 * MB), 0);
    char path[4096];
    size_t off = 1;
    assert_int_equal(provider_file_path(p + 5000, path, sizeof path, &off), 0);
    assert_int_equal(off, 5000);
    assert_non_null(strstr(path, "/loci-"));
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_size, 2 * MB);
    assert_true((size_t)st.st_blocks * 512 >= 2 * MB); /* space reserved */
    assert_int_equal(p[100], 0);
    strcpy(p + MB, "durable bytes");
    assert_int_equal(provider_file.file->flush(p, 2 * MB), 0);
    int fd = open(path, O_RDONLY);
    char buf[16] = {0};
    assert_int_equal(pread(fd, buf, 13, MB), 13);
    close(fd);
    assert_string_equal(buf, "durable bytes");
    /* purge: pages and blocks dropped, file kept, contents zero */
    assert_int_equal(provider_file.purge(p + MB, MB), 0);
    assert_int_equal(p[MB], 0);
    assert_int_equal(access(path, F_OK), 0);
    char *q = provider_file.alloc(&pl, MB, page_size());
    assert_int_equal(count_files(tier), 2);
    assert_int_equal(provider_file.free(p, 2 * MB), 0);
    assert_int_equal(access(path, F_OK), -1); /* gone with the extent */
    assert_int_equal(provider_file.free(q, MB), 0);
    assert_int_equal(count_files(tier), 0);
    uint64_t avail = 0;
    assert_int_equal(provider_file.available(&pl, &avail), 0);
    assert_true(avail > 0);
    assert_int_equal(rmdir(tier), 0);
}

static void file_refuses_unsafe_dirs(void **state)
{
    make_tier();
    char link[300], plain[300], missing[300];
    snprintf(link, sizeof link, "%s-link", tier);
    snprintf(plain, sizeof plain, "%s/file", tier);
    snprintf(missing, sizeof missing, "%s/missing", tier);
    assert_int_equal(symlink(tier, link), 0);
    close(open(plain, O_CREAT | O_WRONLY, 0600));

    place_t pl = file_place(link);
    errno = 0;
    assert_null(provider_file.alloc(&pl, MB, page_size()));
    assert_non_null(strstr(loci_last_error(), "symbolic link"));
    assert_int_equal(errno, EPERM);

    pl = file_place(plain);
    assert_null(provider_file.alloc(&pl, MB, page_size()));
    assert_non_null(strstr(loci_last_error(), "not a directory"));

    pl = file_place(missing);
    assert_null(provider_file.alloc(&pl, MB, page_size()));
    assert_non_null(strstr(loci_last_error(), "does not exist"));

    assert_int_equal(chmod(tier, 0777), 0);
    pl = file_place(tier);
    assert_null(provider_file.alloc(&pl, MB, page_size()));
    assert_non_null(strstr(loci_last_error(), "writable by others"));
    /* its group too: a member could swap a block file for a FIFO, which hung a fork child's open */
    assert_int_equal(chmod(tier, 0770), 0);
    assert_null(provider_file.alloc(&pl, MB, page_size()));
    if (!strstr(loci_last_error(), "is writable by others (mode 770); `chmod go-w"))
        fail_msg("a group-writable tier: %s", loci_last_error());
    assert_int_equal(chmod(tier, 0700), 0);

    if (geteuid() == 0) { /* root can give the directory away */
        assert_int_equal(chown(tier, 12345, 12345), 0);
        assert_null(provider_file.alloc(&pl, MB, page_size()));
        assert_non_null(strstr(loci_last_error(), "owned by uid 12345"));
        assert_int_equal(chown(tier, 0, 0), 0);
    }
    assert_int_equal(count_files(tier), 1); /* nothing created on refusal */
    unlink(plain);
    unlink(link);
    rmdir(tier);
}

/* A symbolic link or a directory anyone can write anywhere above the tier
 * directory (planted where symlinks are not protected) is refused too, not
 * only as the last component. */
static void file_refuses_unsafe_parents(void **state)
{
    make_tier();
    char real[300], link[300], via_link[320], open_dir[300], under_open[320];
    snprintf(real, sizeof real, "%s/real", tier);
    snprintf(link, sizeof link, "%s/link", tier);
    snprintf(via_link, sizeof via_link, "%s/tier", link);
    snprintf(open_dir, sizeof open_dir, "%s/open", tier);
    snprintf(under_open, sizeof under_open, "%s/tier", open_dir);
    assert_int_equal(mkdir(real, 0700), 0);
    char real_tier[320];
    snprintf(real_tier, sizeof real_tier, "%s/tier", real);
    assert_int_equal(mkdir(real_tier, 0700), 0);
    assert_int_equal(symlink("real", link), 0);
    assert_int_equal(mkdir(open_dir, 0700), 0);
    assert_int_equal(chmod(open_dir, 0777), 0); /* writable by all, not sticky */
    assert_int_equal(mkdir(under_open, 0700), 0);

    place_t pl = file_place(via_link);
    errno = 0;
    assert_null(provider_file.alloc(&pl, MB, page_size()));
    if (!strstr(loci_last_error(), "symbolic link") || errno != EPERM)
        fail_msg("tier under a symbolic link: errno %d: %s", errno, loci_last_error());
    pl = file_place(under_open);
    assert_null(provider_file.alloc(&pl, MB, page_size()));
    if (!strstr(loci_last_error(), "writable by others"))
        fail_msg("tier under a directory anyone can write: %s", loci_last_error());
    pl = file_place(real_tier); /* the same directory by its real path is fine */
    void *p = provider_file.alloc(&pl, MB, page_size());
    assert_non_null(p);
    assert_int_equal(provider_file.free(p, MB), 0);
    assert_int_equal(count_files(real_tier), 0);
    remove_tree(tier);
}

static void file_enospc_names_dir_and_size(void **state)
{
    char dir[] = "/dev/shm/loci-tier-XXXXXX"; /* tmpfs: a size limit answers at once */
    if (!mkdtemp(dir))
        skip();
    place_t pl = file_place(dir);
    errno = 0;
    void *p = provider_file.alloc(&pl, (size_t)1 << 44, page_size()); /* 16 TiB */
    assert_null(p);
    assert_int_equal(errno, ENOSPC);
    assert_non_null(strstr(loci_last_error(), dir));
    assert_non_null(strstr(loci_last_error(), "16.0 TiB"));
    assert_int_equal(count_files(dir), 0);
    rmdir(dir);
}

/* Sizes no file tier can hold are refused before any system call: more
 * than the file system has is ENOSPC naming what is free, more than a file
 * can be is ENOMEM, nothing is left in the directory, and through an
 * allocator the intent's fallback runs. */
static void file_absurd_sizes(void **state)
{
    make_tier();
    place_t pl = file_place(tier);
    errno = 0;
    assert_null(provider_file.alloc(&pl, (size_t)1 << 62, page_size()));
    assert_int_equal(errno, ENOSPC);
    if (!strstr(loci_last_error(), "free"))
        fail_msg("message: %s", loci_last_error());
    size_t sizes[] = {(size_t)1 << 63, SIZE_MAX - page_size() + 1};
    for (int i = 0; i < 2; i++) {
        errno = 0;
        assert_null(provider_file.alloc(&pl, sizes[i], page_size()));
        assert_int_equal(errno, ENOMEM);
        assert_null(strstr(loci_last_error(), "posix_fallocate"));
    }
    assert_int_equal(count_files(tier), 0);
    rmdir(tier);

    loci_allocator_t *a = loci_allocator_create("kind=ssd,fallback=default");
    assert_non_null(a);
    size_t big[] = {(size_t)1 << 62, ((size_t)1 << 63) - page_size(), (size_t)1 << 63};
    for (int i = 0; i < 3; i++) {
        errno = 0;
        assert_null(loci_alloc(a, big[i]));
        if ((errno != ENOMEM && errno != ENOSPC) || !strstr(loci_last_error(), "fallback=default"))
            fail_msg("%zu bytes: errno %d: %s", big[i], errno, loci_last_error());
    }
}

/* A file mapping that fails half way (MAP_SYNC on a file system without DAX
 * is refused after the kernel dropped what was at the spot) must never
 * unmap memory another thread mapped meanwhile: threads holding anonymous
 * pages check them while others allocate file extents. */
enum { RACE_PAGES = 64, RACE_ROUNDS = 400 };
static atomic_int race_done;

static place_t race_place; /* made once: file_place writes a shared target */

static void *race_file_allocs(void *arg)
{
    place_t pl = race_place;
    for (int i = 0; i < RACE_ROUNDS; i++) {
        size_t align = i % 2 ? 2 * MB : page_size(); /* mapped as it comes, or over a reservation */
        char *p = provider_file.alloc(&pl, 16 * page_size(), align);
        if (!p) { /* cmocka's asserts belong to the main thread */
            fprintf(stderr, "file alloc: %s\n", loci_last_error());
            *(int *)arg = -1;
            break;
        }
        p[0] = 1;
        provider_file.free(p, 16 * page_size());
    }
    atomic_fetch_add(&race_done, 1);
    return NULL;
}

static void *race_anon_pages(void *arg)
{
    size_t pg = page_size();
    long lost = 0;
    while (atomic_load(&race_done) < 2) {
        unsigned char *held[RACE_PAGES];
        for (int i = 0; i < RACE_PAGES; i++) {
            held[i] = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            held[i][0] = (unsigned char)(i + 1);
        }
        for (int i = 0; i < RACE_PAGES; i++) {
            unsigned char vec;
            if (mincore(held[i], pg, &vec) != 0 || held[i][0] != (unsigned char)(i + 1))
                lost++; /* unmapped (ENOMEM) or replaced under us */
            else
                munmap(held[i], pg);
        }
    }
    *(long *)arg = lost;
    return NULL;
}

static void file_mapping_failures_leave_others_mapped(void **state)
{
    make_tier();
    race_place = file_place(tier);
    atomic_store(&race_done, 0);
    long lost = 0;
    int failed[2] = {0, 0};
    pthread_t alloc1, alloc2, holder;
    assert_int_equal(pthread_create(&holder, NULL, race_anon_pages, &lost), 0);
    assert_int_equal(pthread_create(&alloc1, NULL, race_file_allocs, &failed[0]), 0);
    assert_int_equal(pthread_create(&alloc2, NULL, race_file_allocs, &failed[1]), 0);
    pthread_join(alloc1, NULL);
    pthread_join(alloc2, NULL);
    pthread_join(holder, NULL);
    assert_int_equal(lost, 0);
    assert_int_equal(failed[0] | failed[1], 0);
    assert_int_equal(count_files(tier), 0);
    rmdir(tier);
}

/* ------------------------------------------------------------------- shm -- */

static void shm_maps_again_through_proc(void **state)
{
    place_t pl = place(PLACE_BIND);
    pl.shared = true;
    char *p = provider_shm.alloc(&pl, 2 * MB, page_size());
    assert_non_null(p);
    assert_int_equal(policy_at(p, NULL), MPOL_BIND);
    size_t off = 0;
    int fd = provider_shm_fd(p + 4096, &off);
    assert_true(fd >= 0);
    assert_int_equal(off, 4096);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int fd2 = open(proc, O_RDWR);
    assert_true(fd2 >= 0);
    char *q = mmap(NULL, 2 * MB, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0);
    assert_true(q != MAP_FAILED);
    close(fd2);
    memset(p, 0, 2 * MB); /* fault every page in, under the bind policy */
    strcpy(p + 1000, "from the first mapping");
    assert_string_equal(q + 1000, "from the first mapping");
    strcpy(q + MB, "and back");
    assert_string_equal(p + MB, "and back");
    assert_pages_on_node0(p, 2 * MB);
    assert_int_equal(provider_shm.purge(p, 2 * MB), 0);
    assert_int_equal(q[1000], 0); /* purged for every mapping */
    munmap(q, 2 * MB);
    assert_int_equal(provider_shm.free(p, 2 * MB), 0);
    assert_int_equal(provider_shm_fd(p, NULL), LOCI_ENOENT);
}

static void providers_for_targets(void **state)
{
    struct loci_target t;
    memset(&t, 0, sizeof t);
    t.numa_node = 3;
    assert_ptr_equal(provider_for(&t, false), &provider_numa);
    assert_ptr_equal(provider_for(&t, true), &provider_shm);
    t.path = "/tmp";
    t.numa_node = -1;
    assert_ptr_equal(provider_for(&t, false), &provider_file);
    assert_ptr_equal(provider_for(&t, true), &provider_file);
    t.path = NULL;
    t.cuda_device = -1; /* neither a NUMA node, a file tier nor a GPU: nothing serves it */
    assert_null(provider_for(&t, false));
    t.cuda_device = 0; /* a GPU's device memory, never shareable */
    assert_ptr_equal(provider_for(&t, false), &provider_cuda_device);
    assert_null(provider_for(&t, true));
    assert_null(provider_for(NULL, false));
}

/* What callers above the pool ask instead of naming providers: arenas move
 * within NUMA nodes and adopt across NUMA nodes and file tiers, but never
 * move device memory or pages of the chunk cache; only memory with a file
 * under it flushes; the pool zeroes GPU memory through the driver. */
static void provider_capabilities(void **state)
{
    assert_true(provider_can_move(&provider_numa) && provider_can_adopt(&provider_numa));
    assert_true(provider_can_move(&provider_shm) && provider_can_adopt(&provider_shm));
    assert_true(!provider_can_move(&provider_file) && provider_can_adopt(&provider_file));
    assert_true(!provider_can_move(&provider_paged) && !provider_can_adopt(&provider_paged));
    assert_true(!provider_can_move(&provider_cuda_device) && !provider_can_adopt(&provider_cuda_device));
    assert_true(provider_can_move(&provider_cuda_managed) && !provider_can_adopt(&provider_cuda_managed));
    assert_true(!provider_can_move(&provider_cuda_host) && !provider_can_adopt(&provider_cuda_host));
    assert_null(provider_numa.file);
    assert_null(provider_shm.file);
    assert_non_null(provider_file.file);
    assert_non_null(provider_paged.file);
    assert_null(provider_numa.device);
    assert_non_null(provider_cuda_device.device);
    assert_non_null(provider_cuda_managed.device);
    assert_null(provider_cuda_host.device);
    assert_true(provider_has(&provider_paged, PROVIDER_CHUNKED) && !provider_has(&provider_file, PROVIDER_CHUNKED));
    assert_true(provider_has(&provider_cuda_device, PROVIDER_NO_CPU) &&
                !provider_has(&provider_cuda_managed, PROVIDER_NO_CPU));
    assert_true(provider_has(&provider_cuda_managed, PROVIDER_FOLLOWS_GPU) &&
                !provider_has(&provider_numa, PROVIDER_FOLLOWS_GPU));
    /* every provider has the core the pool calls */
    const provider_ops_t *all[] = {&provider_numa,        &provider_shm,          &provider_file,    &provider_paged,
                                   &provider_cuda_device, &provider_cuda_managed, &provider_cuda_host};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        assert_true(all[i]->name && all[i]->alloc && all[i]->free && all[i]->available);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numa_policies),
        cmocka_unit_test(numa_simulated_places_nothing),
        cmocka_unit_test(numa_bad_node_refused),
        cmocka_unit_test(numa_move_and_purge),
        cmocka_unit_test(numa_available),
        cmocka_unit_test(numa_pinned),
        cmocka_unit_test(numa_pinned_refused),
        cmocka_unit_test(file_extents_are_private_files),
        cmocka_unit_test(file_refuses_unsafe_dirs),
        cmocka_unit_test(file_refuses_unsafe_parents),
        cmocka_unit_test(file_enospc_names_dir_and_size),
        cmocka_unit_test(file_mapping_failures_leave_others_mapped),
        cmocka_unit_test(file_absurd_sizes),
        cmocka_unit_test(shm_maps_again_through_proc),
        cmocka_unit_test(providers_for_targets),
        cmocka_unit_test(provider_capabilities),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
