/* driver.c: runs a fuzz target without libFuzzer: on each file named on
 * the command line (folders: every file inside), or on standard input
 * when there is none (the AFL++ way: afl-fuzz ... -- target). make check
 * replays the regression inputs with it. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hlo.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t n);

static int
runfile(const char *path)
{
	char *data;
	size_t n;
	HloError e;

	if (hlo_read_file(path, &data, &n, &e) < 0) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	LLVMFuzzerTestOneInput((unsigned char *)data, n);
	free(data);
	return 0;
}

static int
runpath(const char *path, int *count)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char buf[4096];
	int bad = 0;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (!(d = opendir(path)))
			return 1;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(buf, sizeof buf, "%s/%s", path, de->d_name);
			bad |= runpath(buf, count);
		}
		closedir(d);
		return bad;
	}
	++*count;
	return runfile(path);
}

int
main(int argc, char **argv)
{
	int i, bad = 0, count = 0;

	if (argc < 2)
		return runfile("-");
	for (i = 1; i < argc; i++)
		bad |= runpath(argv[i], &count);
	printf("%s: %d inputs replayed\n", argv[0], count);
	return bad;
}
