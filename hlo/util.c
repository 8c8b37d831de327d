/* util.c: checked allocation, error messages, whole-file I/O, a growable
 * byte buffer. allocation failure is the one error not returned: it prints
 * a message and exits 1, as there is nothing sensible left to do. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hlo.h"

double
hlo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#ifdef HLOPT_FAILALLOC
/* test builds only (make check-failalloc): the allocation numbered
 * $HLOPT_FAIL_AT fails, as if memory ran out there. the one mutable
 * global of hlopt, and never in a normal build. */
static long failat = -2;

static int
failnow(void)
{
	const char *s;

	if (failat == -2) {
		s = getenv("HLOPT_FAIL_AT");
		failat = s ? atol(s) : -1;
	}
	return failat >= 0 && failat-- == 0;
}
#else
#define failnow() 0
#endif

static void oom(void) __attribute__((noreturn));

/* the one exit outside src/main.c: a resource hlopt cannot do without is
 * gone (an allocation failed, a pool outgrew its 32-bit offsets) and no
 * caller could recover; the message names it */
void
xfatal(const char *what)
{
	fprintf(stderr, "hlopt: error: %s\n", what);
	exit(1);
}

static void
oom(void)
{
	xfatal("out of memory");
}

void
xnomem(void)
{
	oom();
}

void *
xmalloc(size_t n)
{
	void *p = failnow() ? NULL : malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = failnow() ? NULL : calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		oom();
	if (failnow())
		oom();
	p = realloc(p, n * size > 0 ? n * size : 1);
	if (!p)
		oom();
	return p;
}

/* room for one more element: p (cap elements of size bytes, n used)
 * grown to twice cap, or to first when empty, once n reaches cap */
void *
hlo_grow(void *p, uint32_t n, uint32_t *cap, uint32_t first, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : first;
	return xreallocarray(p, *cap, size);
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

int
hlo_err(HloError *e, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* the fixed formats of hlopt's messages about a place in a file:
 * "FILE: error: MSG", "FILE:LINE: error: MSG", "FILE:LINE:COL: error: MSG"
 * (line and col 0 are left out) */
static int
verr_at(HloError *e, const char *file, unsigned line, unsigned col,
	const char *fmt, va_list ap)
{
	int n;

	if (!e)
		return -1;
	if (line && col)
		n = snprintf(e->msg, sizeof e->msg, "%s:%u:%u: error: ", file,
			line, col);
	else if (line)
		n = snprintf(e->msg, sizeof e->msg, "%s:%u: error: ", file,
			line);
	else
		n = snprintf(e->msg, sizeof e->msg, "%s: error: ", file);
	if (n >= 0 && (size_t)n < sizeof e->msg)
		vsnprintf(e->msg + n, sizeof e->msg - n, fmt, ap);
	return -1;
}

int
hlo_err_at(HloError *e, const char *file, unsigned line, unsigned col,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_at(e, file, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

int
hlo_err_file(HloError *e, const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_at(e, file, 0, 0, fmt, ap);
	va_end(ap);
	return -1;
}

/* the fixed format of hlopt's messages about a place in a module:
 * "[FILE: ]error: [WHAT: ]computation C[, instruction I]: MSG" (the
 * verifier and shape inference, the cost analysis, the proto reader and
 * writer); MSG is cut at 800 bytes */
int
hlo_err_in(HloError *e, const char *file, const char *what, const char *comp,
	const char *ins, const char *fmt, ...)
{
	char msg[800];
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(e->msg, sizeof e->msg,
		"%s%serror: %s%scomputation %s%s%s: %s", file ? file : "",
		file ? ": " : "", what ? what : "",
		what ? ": " : "", comp, ins ? ", instruction " : "",
		ins ? ins : "", msg);
	return -1;
}

/* reads a whole file ("-": stdin) into a NUL-terminated buffer */
int
hlo_read_file(const char *path, char **data, size_t *len, HloError *e)
{
	FILE *f;
	struct stat st;
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (strcmp(path, "-") == 0) {
		f = stdin;
	} else {
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return hlo_err_file(e, path, "is a directory");
		f = fopen(path, "rb");
		if (!f)
			return hlo_err_file(e, path, "cannot open: %s",
				strerror(errno));
	}
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = xreallocarray(buf, cap + 1, 1);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		int err = errno;

		free(buf);
		if (f != stdin)
			fclose(f);
		return hlo_err_file(e, path, "read failed: %s",
			strerror(err));
	}
	if (f != stdin)
		fclose(f);
	buf[n] = 0;
	*data = buf;
	*len = n;
	return 0;
}

/* the file a path names: a symbolic link is followed to its target
 * (which need not exist yet), so writing replaces the target, not the
 * link; a malloc'd path */
static char *
write_target(const char *path)
{
	char *cur = xstrdup(path), *lnk, *slash, *nxt;
	ssize_t k;
	size_t cap;
	int hops;
	struct stat st;

	for (hops = 0; hops < 40 && lstat(cur, &st) == 0 &&
	    S_ISLNK(st.st_mode); hops++) {
		cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096;
		lnk = xmalloc(cap + 1);
		k = readlink(cur, lnk, cap);
		if (k < 0) {
			free(lnk);
			break;
		}
		lnk[k] = 0;
		slash = strrchr(cur, '/');
		if (lnk[0] == '/' || !slash) {
			nxt = lnk;
		} else {	/* relative to the link's folder */
			nxt = xmalloc((size_t)(slash - cur) + 2 + (size_t)k);
			memcpy(nxt, cur, (size_t)(slash - cur) + 1);
			memcpy(nxt + (slash - cur) + 1, lnk, (size_t)k + 1);
			free(lnk);
		}
		free(cur);
		cur = nxt;
	}
	return cur;
}

/* writes a whole buffer to f; 0, or -1 with errno set */
static int
write_all(FILE *f, const void *data, size_t len)
{
	errno = 0;
	if (fwrite(data, 1, len, f) != len || fflush(f) || ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* one output of hlo_write_files on its way: a temporary file next to
 * its target, or (tmp NULL) a device, pipe or stdout written in place */
typedef struct {
	char *target, *tmp;
} Pending;

/* creates the temporary file of o (mode: the existing file's, or 0666
 * less the umask) and fills it */
static int
write_tmp(const HloOutput *o, Pending *w, HloError *e)
{
	size_t n = strlen(w->target);
	struct stat st;
	mode_t mode, um;
	FILE *f;
	int fd, err;

	if (stat(w->target, &st) == 0) {
		mode = st.st_mode & 07777;
	} else {
		um = umask(022);
		umask(um);
		mode = 0666 & ~um;
	}
	w->tmp = xmalloc(n + 16);
	memcpy(w->tmp, w->target, n);
	memcpy(w->tmp + n, ".tmp.XXXXXX", 12);
	fd = mkstemp(w->tmp);
	if (fd < 0) {
		err = errno;
		free(w->tmp);
		w->tmp = NULL;
		return hlo_err_file(e, o->path, "cannot create: %s",
			strerror(err));
	}
	fchmod(fd, mode);
	f = fdopen(fd, "wb");
	if (!f || write_all(f, o->data, o->len) < 0) {
		err = errno;
		if (f)
			fclose(f);
		else
			close(fd);
		return hlo_err_file(e, o->path, "write failed: %s",
			strerror(err ? err : EIO));
	}
	if (fclose(f))
		return hlo_err_file(e, o->path, "write failed: %s",
			strerror(errno));
	return 0;
}

/* writes o in place: stdout ("-"), or a device or pipe (/dev/null,
 * /dev/full), where renaming over it would replace the node */
static int
write_inplace(const HloOutput *o, HloError *e)
{
	FILE *f;
	int err;

	if (strcmp(o->path, "-") == 0) {
		if (write_all(stdout, o->data, o->len) < 0)
			return hlo_err_file(e, "<stdout>", "write failed: %s",
				strerror(errno));
		return 0;
	}
	f = fopen(o->path, "wb");
	if (!f)
		return hlo_err_file(e, o->path, "cannot open: %s",
			strerror(errno));
	if (write_all(f, o->data, o->len) < 0) {
		err = errno;
		fclose(f);
		return hlo_err_file(e, o->path, "write failed: %s",
			strerror(err));
	}
	if (fclose(f))
		return hlo_err_file(e, o->path, "write failed: %s",
			strerror(errno));
	return 0;
}

/* writes every output or, as far as the file system allows, none:
 * regular files go to temporary files first; devices and stdout are
 * written once all of those exist; the renames come last, and a
 * failure before them removes every temporary file */
int
hlo_write_files(const HloOutput *o, size_t n, HloError *e)
{
	Pending *w = xcalloc(n ? n : 1, sizeof *w);
	struct stat st;
	size_t i;
	int r = 0, err;

	for (i = 0; i < n && r == 0; i++) {
		if (strcmp(o[i].path, "-") == 0)
			continue;
		w[i].target = write_target(o[i].path);
		if (stat(w[i].target, &st) == 0 && S_ISDIR(st.st_mode))
			r = hlo_err_file(e, o[i].path, "is a directory");
		else if (stat(w[i].target, &st) < 0 || S_ISREG(st.st_mode))
			r = write_tmp(&o[i], &w[i], e);
	}
	for (i = 0; i < n && r == 0; i++)
		if (!w[i].tmp)
			r = write_inplace(&o[i], e);
	for (i = 0; i < n && r == 0; i++) {
		if (w[i].tmp && rename(w[i].tmp, w[i].target) < 0) {
			err = errno;
			r = hlo_err_file(e, o[i].path, "write failed: %s",
				strerror(err));
		} else if (w[i].tmp) {
			free(w[i].tmp);
			w[i].tmp = NULL;
		}
	}
	for (i = 0; i < n; i++) {
		if (w[i].tmp)
			unlink(w[i].tmp);
		free(w[i].tmp);
		free(w[i].target);
	}
	free(w);
	return r;
}

/* writes data to path (see hlo_write_files) */
int
hlo_write_file(const char *path, const void *data, size_t len, HloError *e)
{
	HloOutput o;

	o.path = path;
	o.data = data;
	o.len = len;
	return hlo_write_files(&o, 1, e);
}

void
hlo_buf_put(HloBuf *b, const char *s, size_t n)
{
	if (b->cap - b->len <= n) {
		size_t c = b->cap ? b->cap : 256;

		while (c - b->len <= n)
			c *= 2;
		b->buf = xreallocarray(b->buf, c, 1);
		b->cap = c;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = 0;
}

void
hlo_buf_puts(HloBuf *b, const char *s)
{
	hlo_buf_put(b, s, strlen(s));
}

void
hlo_buf_printf(HloBuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof tmp) {
		hlo_buf_put(b, tmp, n);
		return;
	}
	hlo_buf_put(b, "", 0);
	if (b->cap - b->len <= (size_t)n) {
		b->buf = xreallocarray(b->buf, b->len + n + 1, 1);
		b->cap = b->len + n + 1;
	}
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

void
hlo_buf_free(HloBuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

/* a JSON string: quotes, backslashes and control characters escaped,
 * bytes that are not UTF-8 replaced by U+FFFD */
void
hlo_buf_json(HloBuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, k;

	hlo_buf_put(b, "\"", 1);
	while (*p) {
		if (*p == '"' || *p == '\\') {
			hlo_buf_put(b, "\\", 1);
			hlo_buf_put(b, (const char *)p++, 1);
			continue;
		}
		if (*p < 0x20) {
			hlo_buf_printf(b, "\\u%04x", *p++);
			continue;
		}
		len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 && *p >= 0xc2 ? 2 :
			(*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 &&
			*p <= 0xf4 ? 4 : 0;
		for (k = 1; k < len; k++)
			if ((p[k] & 0xc0) != 0x80)
				len = 0;
		if (len == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) ||
		    (p[0] == 0xed && p[1] >= 0xa0)))
			len = 0;
		if (len == 4 && ((p[0] == 0xf0 && p[1] < 0x90) ||
		    (p[0] == 0xf4 && p[1] >= 0x90)))
			len = 0;
		if (!len) {
			hlo_buf_puts(b, "\\ufffd");
			p++;
			continue;
		}
		hlo_buf_put(b, (const char *)p, len);
		p += len;
	}
	hlo_buf_put(b, "\"", 1);
}
