#include "planted.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLANTED_TEXT "planted\n"

bool planted_users_available(const char *test)
{
    if (geteuid() == 0)
        return true;
    fprintf(stderr, "%s: skipped: planting as one user and falling victim as another needs root (euid %u)\n", test,
            (unsigned)geteuid());
    return false;
}

void planted_shared_dir(char *dir)
{
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chmod(dir, 01777), 0);
}

void planted_own_dir(const char *path, int uid)
{
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(chown(path, (uid_t)uid, (gid_t)uid), 0);
}

static int make(const char *path, char kind)
{
    if (kind == 'p')
        return mkfifo(path, 0666) == 0 && chmod(path, 0666) == 0 ? 0 : errno;
    if (kind == 'c')
        return mknod(path, S_IFCHR | 0666, makedev(1, 3)) == 0 ? 0 : errno;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return errno;
    int rc = write(fd, PLANTED_TEXT, strlen(PLANTED_TEXT)) == (ssize_t)strlen(PLANTED_TEXT) ? 0 : EIO;
    close(fd);
    return rc;
}

int plant(const char *path, char kind, int uid)
{
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int rc = (uid_t)uid == geteuid() || (setgroups(0, NULL) == 0 && setgid((gid_t)uid) == 0 &&
                                            setuid((uid_t)uid) == 0)
                     ? make(path, kind)
                     : errno;
        _exit(write(pipefd[1], &rc, sizeof rc) == sizeof rc ? 0 : 1);
    }
    close(pipefd[1]);
    int rc = EIO;
    assert_int_equal(read(pipefd[0], &rc, sizeof rc), sizeof rc);
    close(pipefd[0]);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return rc;
}

void assert_untouched(const char *path, char kind, int uid)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        fail_msg("%s: gone (%s)", path, strerror(errno));
    bool type = kind == 'p' ? S_ISFIFO(st.st_mode) : kind == 'c' ? S_ISCHR(st.st_mode) : S_ISREG(st.st_mode);
    if (!type || st.st_uid != (uid_t)uid)
        fail_msg("%s: replaced (mode %o, owner %u; planted %c by %d)", path, (unsigned)st.st_mode,
                 (unsigned)st.st_uid, kind, uid);
    if (kind == 'f') {
        char text[64] = "";
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        assert_string_equal(text, PLANTED_TEXT);
    }
}
