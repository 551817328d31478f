// main() of memkind's gtest programs, for Debian's gtest: memkind's own test/main.cpp asks its
// bundled gtest for testing::GetGtestHelpFlag(), which upstream gtest does not have. The same
// option: -d DIR, the directory of file-backed (pmem) kinds, /tmp/ by default.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

const char *PMEM_DIR = "/tmp/";

int main(int argc, char **argv)
{
    testing::InitGoogleTest(&argc, argv);
    for (int opt; (opt = getopt(argc, argv, "d:")) != -1;) {
        struct stat st;
        if (opt != 'd')
            return -1;
        PMEM_DIR = optarg;
        if (stat(PMEM_DIR, &st) != 0 || !S_ISDIR(st.st_mode)) {
            printf("%s : Error in getting path status or invalid or non-existent directory\n", PMEM_DIR);
            return -1;
        }
    }
    return RUN_ALL_TESTS();
}
