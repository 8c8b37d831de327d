/* curve.c: learning curves of a run (run.h): a CSV file with one row per
 * update, and an SVG chart of the best and the mean episode result (the
 * share of the objective removed) against environment steps, with axes,
 * ticks and a legend, readable in any browser */
#include <math.h>
#include <stdio.h>

#include "run.h"

/* a number, or nothing for NAN */
static void
num(FILE *f, double v, int last)
{
	if (!isnan(v))
		fprintf(f, "%.6g", v);
	fputc(last ? '\n' : ',', f);
}

int
rl_curve_csv(const RlRun *run, FILE *f)
{
	const RlCurveRow *c;
	int i;

	fputs("steps,updates,episodes,episode_return,best_fraction,"
		"policy_loss,value_loss,entropy,approx_kl,clip_fraction,"
		"epsilon,seconds\n", f);
	for (i = 0; i < run->ncurve; i++) {
		c = &run->curve[i];
		fprintf(f, "%ld,%ld,%ld,", c->st.steps, c->st.updates,
			c->st.episodes);
		num(f, c->st.ep_return, 0);
		num(f, c->best_fraction, 0);
		num(f, c->st.policy_loss, 0);
		num(f, c->st.value_loss, 0);
		num(f, c->st.entropy, 0);
		num(f, c->st.approx_kl, 0);
		num(f, c->st.clip_fraction, 0);
		num(f, c->st.epsilon, 0);
		num(f, c->seconds, 1);
	}
	return ferror(f) ? -1 : 0;
}

/* a round step for about n ticks over [0, span] */
static double
tick_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

#define W 720
#define H 420
#define L 70	/* margins: left, right, top, bottom */
#define R 20
#define T 40
#define B 50

static void
escape(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

/* the y range over both series, with 0 included */
static void
yrange(const RlRun *run, double *lo, double *hi)
{
	const RlCurveRow *c;
	int i;

	*lo = 0;
	*hi = 0;
	for (i = 0; i < run->ncurve; i++) {
		c = &run->curve[i];
		if (c->best_fraction > *hi)
			*hi = c->best_fraction;
		if (!isnan(c->st.ep_return)) {
			if (c->st.ep_return > *hi)
				*hi = c->st.ep_return;
			if (c->st.ep_return < *lo)
				*lo = c->st.ep_return;
		}
	}
	if (*hi - *lo < 1e-3)
		*hi = *lo + 1e-3;
}

static void
axes(FILE *f, double xmax, double lo, double hi)
{
	double s, v;

	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"black\"/>\n", L, H - B, W - R, H - B);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"black\"/>\n", L, T, L, H - B);
	s = tick_step(xmax, 6);
	for (v = 0; v <= xmax * (1 + 1e-9); v += s)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
			"%g</text>\n", L + v / xmax * (W - L - R), H - B + 18,
			v);
	s = tick_step(hi - lo, 5);
	for (v = ceil(lo / s) * s; v <= hi * (1 + 1e-9); v += s)
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">%g</text>\n", L, H - B - (v - lo) /
			(hi - lo) * (H - T - B), W - R, H - B - (v - lo) /
			(hi - lo) * (H - T - B), L - 6, H - B - (v - lo) /
			(hi - lo) * (H - T - B) + 4, fabs(v) < s / 1e6 ? 0 : v);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
		"environment steps</text>\n", (L + W - R) / 2, H - 12);
	fprintf(f, "<text transform=\"translate(16 %d) rotate(-90)\" "
		"text-anchor=\"middle\">share of the objective removed"
		"</text>\n", (T + H - B) / 2);
}

static void
series(FILE *f, const RlRun *run, int best, double xmax, double lo,
	double hi, const char *color)
{
	const RlCurveRow *c;
	double y;
	int i;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		"points=\"", color);
	for (i = 0; i < run->ncurve; i++) {
		c = &run->curve[i];
		y = best ? c->best_fraction : c->st.ep_return;
		if (isnan(y))
			continue;
		fprintf(f, "%.1f,%.1f ", L + c->st.steps / xmax * (W - L - R),
			H - B - (y - lo) / (hi - lo) * (H - T - B));
	}
	fputs("\"/>\n", f);
}

int
rl_curve_svg(const RlRun *run, const char *title, FILE *f)
{
	double xmax = 1, lo, hi;
	int i;

	for (i = 0; i < run->ncurve; i++)
		if (run->curve[i].st.steps > xmax)
			xmax = (double)run->curve[i].st.steps;
	yrange(run, &lo, &hi);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		"font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"white\"/>\n<text x=\"%d\" y=\"22\" font-size=\"14\">",
		W, H, W, H, L);
	escape(f, title);
	fputs("</text>\n", f);
	axes(f, xmax, lo, hi);
	series(f, run, 0, xmax, lo, hi, "#1f77b4");
	series(f, run, 1, xmax, lo, hi, "#d62728");
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"200\" height=\"44\" "
		"fill=\"white\" stroke=\"#999\"/>\n", W - R - 210, H - B - 54);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#d62728\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">"
		"best so far</text>\n", W - R - 200, H - B - 38, W - R - 175,
		H - B - 38, W - R - 168, H - B - 34);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#1f77b4\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">"
		"mean episode return</text>\n", W - R - 200, H - B - 20,
		W - R - 175, H - B - 20, W - R - 168, H - B - 16);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
