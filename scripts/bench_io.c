/* bench_io.c: parse/print/proto read/write throughput and clone time of
 * the modules named on the command line (built by scripts/bench-io) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hlo.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* best of reps runs, in seconds */
#define BEST(reps, body) do { \
	double best_ = 1e30, t0_; int r_; \
	for (r_ = 0; r_ < (reps); r_++) { t0_ = now(); body; \
		if (now() - t0_ < best_) best_ = now() - t0_; } \
	secs = best_; } while (0)

static int
countlines(const char *s, size_t n)
{
	const char *p = s, *end = s + n;
	int k = 0;

	while ((p = memchr(p, '\n', end - p))) {
		k++;
		p++;
	}
	return k;
}

int
main(int argc, char **argv)
{
	int i, nins;
	volatile int sink = 0;
	HloError e;

	printf("%-48s %8s %8s %8s %8s %8s %8s %8s\n", "module", "MB",
		"instrs", "parseMB/s", "printMB/s", "pbrdMB/s", "pbwrMB/s",
		"clone_ms");
	for (i = 1; i < argc; i++) {
		char *src;
		size_t n;
		HloModule *m, *m2;
		HloBuf b = {0}, pb = {0};
		double secs, tparse, tprint, tprd = 0, tpwr = 0, tclone, twc;
		double mb;
		uint32_t c;
		const char *base = strrchr(argv[i], '/');

		if (hlo_read_file(argv[i], &src, &n, &e) < 0 ||
		    hlo_parse_text(src, n, argv[i], &m, &e) < 0) {
			fprintf(stderr, "%s\n", e.msg);
			return 1;
		}
		hlo_module_free(m);
		mb = n / 1e6;
		BEST(5, if (hlo_parse_text(src, n, argv[i], &m, &e) == 0)
			hlo_module_free(m));
		tparse = secs;
		hlo_parse_text(src, n, argv[i], &m, &e);
		for (nins = 0, c = 0; c < m->ncomps; c++)
			nins += m->comps[c].nins;
		BEST(5, b.len = 0; hlo_print_module(m, &b));
		tprint = secs;
		BEST(5, pb.len = 0; hlo_write_proto(m, &pb, &e));
		tpwr = secs;
		BEST(5, if (hlo_read_proto(pb.buf, pb.len, "x.pb", &m2, &e) == 0)
			hlo_module_free(m2));
		tprd = secs;
		BEST(20, m2 = hlo_module_clone(m); hlo_module_free(m2));
		tclone = secs;
		BEST(5, sink += countlines(src, n));
		twc = secs;
		printf("%-48.48s %8.2f %8d %8.0f %8.0f %8.0f %8.0f %8.3f\n",
			base ? base + 1 : argv[i], mb, nins, mb / tparse,
			b.len / 1e6 / tprint, pb.len / 1e6 / tprd,
			pb.len / 1e6 / tpwr, tclone * 1e3);
		printf("%-48s %8s %8s %8.0f (newline count, the wc -l "
			"yardstick, in-process)\n", "", "", "", mb / twc);
		hlo_buf_free(&b);
		hlo_buf_free(&pb);
		hlo_module_free(m);
		free(src);
	}
	return 0;
}
