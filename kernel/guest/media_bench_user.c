// SPDX-License-Identifier: GPL-2.0
/*
 * "ninja -C build kernel-bench-media": load vivid and what it needs with
 * finit_module(), then on vivid's video capture node time a loop of
 * VIDIOC_QUERYCAP ("querycap"), a loop of VIDIOC_G_FMT of the capture
 * format ("gfmt") and a loop of open(O_RDONLY) and close of the node
 * ("open"), each from one CPU and from every online CPU at once (a
 * descriptor each), and then stream: 4 MMAP buffers, VIDIOC_DQBUF and
 * VIDIOC_QBUF of each frame for SECS seconds a round ("stream", one CPU:
 * there is one queue).  Prints the time per call, per open and close, or
 * per frame (with the frames per second), as the median of the rounds.
 *
 * Then a vivid instance's life ("unbind", "bind", "vivid_life"): its
 * platform device unbound from the driver through sysfs while a file of
 * its capture node is open (the file's next ioctl must fail, then it is
 * closed), and bound again (probe, its nodes registered): LIFE_CYCLES
 * cycles a round, the time of each write to sysfs.
 *
 * The streaming rate is the CPU's, not a frame rate's.  vivid's capture
 * thread computes from jiffies which frame is due and sleeps until the
 * next one; when the next one is due within the current jiffy it does not
 * sleep, and fills the next queued buffer at once.  That holds on every
 * pass when the frame period is at most a third of a jiffy (1.3 ms at the
 * benchmark kernels' HZ=250).  The webcam input stops at 1/120 s (its
 * VIDIOC_S_PARM table) and the HDMI presets at 120 Hz, so the node is set
 * to an HDMI input with CVT reduced-blanking v2 timings that vivid
 * accepts: a 64x64 image, 500 kHz lines, 217 lines of front porch for
 * CVT's 460 us of vertical blanking: a frame each 590 us (vivid's
 * timeperframe 424/720000, about 1700 a second).  The thread then never
 * sleeps while streaming: a frame costs the ioctls, the wake-ups and the
 * fill of 8 KiB (YUYV), which is what the loop measures, and the rate can
 * exceed the nominal one.  The thread spins on its CPU while no buffer is
 * queued (the kernels are PREEMPT_NONE), so the streaming loop is not
 * pinned: the scheduler keeps it on the other CPU.
 *
 * usage: media_bench_user [MODULE.ko...] [LOOPS [ROUNDS [SECS]]]
 *	the modules to load, in any order (default: every *.ko at /); the
 *	open loop runs LOOPS / 10 times
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_user.h"

#define TAG		"MEDIABENCH"
#define MAX_MODS	16
#define NBUFS		4
#define WARMUP		64
/* Unbind + bind cycles per round of the lifecycle rows. */
#define LIFE_CYCLES	10
#define VIVID_DRV	"/sys/bus/platform/drivers/vivid"
/* vivid: one instance with a video capture node only, its input HDMI. */
#define VIVID_PARAMS	"n_devs=1 node_types=0x1 num_inputs=1 input_types=0x3"
/* The HDMI timings (CVT reduced blanking v2, see above). */
#define IMG_WIDTH	64
#define IMG_HEIGHT	64
#define LINE_HZ		500000

struct kmod {
	char path[256];
	char name[64];
	char deps[256];		/* the .modinfo "depends=" list */
	int loaded;
};

static struct kmod mods[MAX_MODS];
static int nmods;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Module names as modpost writes them, '-' and '_' alike. */
static int name_eq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char x = a[i] == '-' ? '_' : a[i];
		char y = b[i] == '-' ? '_' : b[i];

		if (!x || x != y)
			return 0;
	}
	return !a[n];
}

static void mod_add(const char *path)
{
	const char *base = strrchr(path, '/');
	struct kmod *m;
	struct stat st;
	char *buf, *p;
	size_t len = 0;
	ssize_t r;
	int fd;

	if (nmods == MAX_MODS) {
		fprintf(stderr, "media_bench_user: more than %d modules\n", MAX_MODS);
		exit(2);
	}
	m = &mods[nmods++];
	base = base ? base + 1 : path;
	snprintf(m->path, sizeof(m->path), "%s", path);
	snprintf(m->name, sizeof(m->name), "%.*s", (int)(strlen(base) - 3), base);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		die(path);
	buf = malloc(st.st_size + 1);
	if (!buf)
		die("malloc");
	while (len < (size_t)st.st_size &&
	       (r = read(fd, buf + len, st.st_size - len)) > 0)
		len += r;
	close(fd);
	buf[len] = 0;
	p = memmem(buf, len, "\0depends=", 9);
	if (p)
		snprintf(m->deps, sizeof(m->deps), "%s", p + 9);
	free(buf);
}

static void mods_scan(const char *dir)
{
	char path[512];
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t n;

	if (!d)
		die(dir);
	while ((de = readdir(d))) {
		n = strlen(de->d_name);
		if (n > 3 && !strcmp(de->d_name + n - 3, ".ko")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			mod_add(path);
		}
	}
	closedir(d);
}

/*
 * Whether every module @m depends on is loaded: a dependency that is not
 * among the modules is built in (videobuf2's core is, on the converted
 * kernel) or missing, which finit_module() then reports.
 */
static int deps_ready(const struct kmod *m)
{
	const char *dep = m->deps;

	while (*dep) {
		size_t n = strcspn(dep, ",");

		for (int i = 0; i < nmods; i++)
			if (!mods[i].loaded && name_eq(mods[i].name, dep, n))
				return 0;
		dep += n + (dep[n] == ',');
	}
	return 1;
}

/* Load the modules, each after those it depends on. */
static void mods_load(void)
{
	int left = nmods, progress = 1;

	while (left && progress) {
		progress = 0;
		for (int i = 0; i < nmods; i++) {
			struct kmod *m = &mods[i];
			const char *params = name_eq(m->name, "vivid", 5) ? VIVID_PARAMS : "";
			int fd;

			if (m->loaded || !deps_ready(m))
				continue;
			fd = open(m->path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				die(m->path);
			if (syscall(SYS_finit_module, fd, params, 0) && errno != EEXIST)
				die(m->path);
			close(fd);
			printf("media_bench_user: loaded %s%s%s\n", m->name,
			       *params ? " " : "", params);
			m->loaded = 1;
			progress = 1;
			left--;
		}
	}
	if (left) {
		fprintf(stderr, "media_bench_user: modules depending on each other\n");
		exit(1);
	}
	fflush(stdout);
}

/* vivid's streaming video capture node, opened O_RDWR, its path in @node. */
static int find_capture(char *node, size_t size)
{
	struct v4l2_capability cap;
	__u32 caps;
	int fd;

	for (int tries = 0; tries < 500; tries++) {
		for (int i = 0; i < 64; i++) {
			snprintf(node, size, "/dev/video%d", i);
			fd = open(node, O_RDWR | O_CLOEXEC);
			if (fd < 0)
				continue;
			memset(&cap, 0, sizeof(cap));
			if (!ioctl(fd, VIDIOC_QUERYCAP, &cap)) {
				caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ?
				       cap.device_caps : cap.capabilities;
				if (!strcmp((char *)cap.driver, "vivid") &&
				    (caps & V4L2_CAP_VIDEO_CAPTURE) &&
				    (caps & V4L2_CAP_STREAMING))
					return fd;
			}
			close(fd);
		}
		usleep(10000);
	}
	fprintf(stderr, "media_bench_user: no vivid video capture node\n");
	exit(1);
}

/*
 * The first HDMI input, with the timings that v4l2_detect_cvt() derives
 * for CVT reduced blanking v2 (vsync 8, positive hsync) from the frame's
 * height and line rate, so that vivid's VIDIOC_S_DV_TIMINGS accepts them.
 */
static void set_input(int fd, const char *node)
{
	struct v4l2_input in;
	struct v4l2_dv_timings t;
	struct v4l2_bt_timings *bt = &t.bt;
	struct v4l2_streamparm parm;
	struct v4l2_format fmt;
	struct v4l2_fract *tpf = &parm.parm.capture.timeperframe;
	int idx = -1;

	memset(&in, 0, sizeof(in));
	for (in.index = 0; !ioctl(fd, VIDIOC_ENUMINPUT, &in); in.index++)
		if (in.capabilities & V4L2_IN_CAP_DV_TIMINGS) {
			idx = in.index;
			break;
		}
	if (idx < 0) {
		fprintf(stderr, "media_bench_user: vivid has no HDMI input\n");
		exit(1);
	}
	if (ioctl(fd, VIDIOC_S_INPUT, &idx))
		die("VIDIOC_S_INPUT");

	memset(&t, 0, sizeof(t));
	t.type = V4L2_DV_BT_656_1120;
	bt->width = IMG_WIDTH;
	bt->height = IMG_HEIGHT;
	bt->polarities = V4L2_DV_HSYNC_POS_POL;
	/* 80 pixels of horizontal blanking: front porch, sync, back porch. */
	bt->hfrontporch = 8;
	bt->hsync = 32;
	bt->hbackporch = 40;
	/* 460 us of vertical blanking at least: 231 lines at 500 kHz. */
	bt->vsync = 8;
	bt->vbackporch = 6;
	bt->vfrontporch = 460ULL * LINE_HZ / 1000000 + 1 - bt->vsync - bt->vbackporch;
	bt->pixelclock = (IMG_WIDTH + 80ULL) * LINE_HZ;
	bt->standards = V4L2_DV_BT_STD_CVT;
	bt->flags = V4L2_DV_FL_REDUCED_BLANKING;
	if (ioctl(fd, VIDIOC_S_DV_TIMINGS, &t))
		die("VIDIOC_S_DV_TIMINGS");

	memset(&parm, 0, sizeof(parm));
	parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	memset(&fmt, 0, sizeof(fmt));
	fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (ioctl(fd, VIDIOC_G_PARM, &parm) || ioctl(fd, VIDIOC_G_FMT, &fmt))
		die("VIDIOC_G_PARM, VIDIOC_G_FMT");
	printf("media_bench_user: %s input %d (%s) %ux%u %.4s, timeperframe %u/%u (%.0f Hz)\n",
	       node, idx, (char *)in.name, fmt.fmt.pix.width, fmt.fmt.pix.height,
	       (char *)&fmt.fmt.pix.pixelformat, tpf->numerator, tpf->denominator,
	       tpf->numerator ? (double)tpf->denominator / tpf->numerator : 0);
	fflush(stdout);
}

static int op_querycap(struct bench_worker *w)
{
	return ioctl(w->fd, VIDIOC_QUERYCAP, w->priv);
}

static int op_gfmt(struct bench_worker *w)
{
	return ioctl(w->fd, VIDIOC_G_FMT, w->priv);
}

/* bench_run() of @op on fds[i], with an argument of @size bytes each. */
static void bench_arg(const char *what, int (*op)(struct bench_worker *w),
		      const int *fds, int cpus, long loops, int rounds,
		      void *args, size_t size)
{
	struct bench_worker w[MAX_CPUS];

	memset(w, 0, sizeof(w));
	for (int i = 0; i < cpus; i++) {
		w[i].fd = fds[i];
		w[i].cpu = i;
		w[i].loops = loops;
		w[i].priv = (char *)args + i * size;
		w[i].op = op;
	}
	bench_run(TAG, what, w, cpus, rounds);
}

static void frame(int fd)
{
	struct v4l2_buffer b;

	memset(&b, 0, sizeof(b));
	b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b.memory = V4L2_MEMORY_MMAP;
	if (ioctl(fd, VIDIOC_DQBUF, &b))
		die("VIDIOC_DQBUF");
	if (ioctl(fd, VIDIOC_QBUF, &b))
		die("VIDIOC_QBUF");
}

/* Frames for @secs seconds; ns per frame. */
static double stream_round(int fd, double secs)
{
	double t0 = now_ns(), t;
	long frames = 0;

	do {
		frame(fd);
		frames++;
		t = now_ns();
	} while (t - t0 < secs * 1e9);
	return (t - t0) / frames;
}

static void stream_frames(int fd, int rounds, double secs)
{
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_requestbuffers req = {
		.count = NBUFS, .type = type, .memory = V4L2_MEMORY_MMAP,
	};
	struct v4l2_buffer b;
	void *map[NBUFS];
	size_t len[NBUFS];
	double ns[MAX_ROUNDS];

	if (ioctl(fd, VIDIOC_REQBUFS, &req))
		die("VIDIOC_REQBUFS");
	if (req.count != NBUFS) {
		fprintf(stderr, "media_bench_user: %u buffers, not %d\n", req.count, NBUFS);
		exit(1);
	}
	for (unsigned int i = 0; i < NBUFS; i++) {
		b = (struct v4l2_buffer){
			.type = type, .memory = V4L2_MEMORY_MMAP, .index = i,
		};
		if (ioctl(fd, VIDIOC_QUERYBUF, &b))
			die("VIDIOC_QUERYBUF");
		len[i] = b.length;
		map[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd, b.m.offset);
		if (map[i] == MAP_FAILED)
			die("mmap");
		if (ioctl(fd, VIDIOC_QBUF, &b))
			die("VIDIOC_QBUF");
	}
	if (ioctl(fd, VIDIOC_STREAMON, &type))
		die("VIDIOC_STREAMON");
	for (int i = 0; i < WARMUP; i++)
		frame(fd);
	for (int r = 0; r < rounds; r++)
		ns[r] = stream_round(fd, secs);
	qsort(ns, rounds, sizeof(ns[0]), bench_cmp);
	printf("%s: stream cpus=1 ns_per_op=%.3f fps=%.1f\n", TAG,
	       ns[rounds / 2], 1e9 / ns[rounds / 2]);
	fflush(stdout);
	if (ioctl(fd, VIDIOC_STREAMOFF, &type))
		die("VIDIOC_STREAMOFF");
	for (int i = 0; i < NBUFS; i++)
		munmap(map[i], len[i]);
	req.count = 0;
	if (ioctl(fd, VIDIOC_REQBUFS, &req))
		die("VIDIOC_REQBUFS 0");
}

/* The name of vivid's platform device, bound to the driver now. */
static void vivid_pdev(char *name, size_t size)
{
	struct dirent *e;
	DIR *d = opendir(VIVID_DRV);

	if (!d)
		die(VIVID_DRV);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "vivid.", 6)) {
			snprintf(name, size, "%s", e->d_name);
			closedir(d);
			return;
		}
	fprintf(stderr, "media_bench_user: no vivid device bound\n");
	exit(1);
}

/* @dev written to the driver's bind or unbind attribute; ns. */
static double drv_write(const char *attr, const char *dev)
{
	char path[128];
	double t0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", VIVID_DRV, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	t0 = now_ns();
	if (write(fd, dev, strlen(dev)) != (ssize_t)strlen(dev))
		die(path);
	t0 = now_ns() - t0;
	close(fd);
	return t0;
}

/*
 * Unbind vivid under an open file of its capture node and bind it again,
 * LIFE_CYCLES times a round; the median round of each row.
 */
static void bench_life(int rounds)
{
	double unb[MAX_ROUNDS], bnd[MAX_ROUNDS], life[MAX_ROUNDS];
	struct v4l2_capability cap;
	char dev[256], node[32];

	vivid_pdev(dev, sizeof(dev));
	for (int r = 0; r < rounds; r++) {
		double u = 0, b = 0;

		for (int i = 0; i < LIFE_CYCLES; i++) {
			int fd = find_capture(node, sizeof(node));

			u += drv_write("unbind", dev);
			if (!ioctl(fd, VIDIOC_QUERYCAP, &cap) || errno != ENODEV) {
				fprintf(stderr, "media_bench_user: VIDIOC_QUERYCAP after unbind: %s\n",
					strerror(errno));
				exit(1);
			}
			close(fd);
			b += drv_write("bind", dev);
		}
		unb[r] = u / LIFE_CYCLES;
		bnd[r] = b / LIFE_CYCLES;
		life[r] = (u + b) / LIFE_CYCLES;
	}
	qsort(unb, rounds, sizeof(unb[0]), bench_cmp);
	qsort(bnd, rounds, sizeof(bnd[0]), bench_cmp);
	qsort(life, rounds, sizeof(life[0]), bench_cmp);
	printf("%s: unbind cpus=1 ns_per_op=%.3f\n", TAG, unb[rounds / 2]);
	printf("%s: bind cpus=1 ns_per_op=%.3f\n", TAG, bnd[rounds / 2]);
	printf("%s: vivid_life cpus=1 ns_per_op=%.3f\n", TAG, life[rounds / 2]);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long num[3] = { 100000, 5, 1 };
	int nnum = 0, cpus = bench_cpus(), fd, fds[MAX_CPUS], rounds;
	struct v4l2_capability caps[MAX_CPUS];
	struct v4l2_format fmts[MAX_CPUS];
	char node[32];
	long loops;

	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (n > 3 && !strcmp(argv[i] + n - 3, ".ko"))
			mod_add(argv[i]);
		else if (nnum < 3)
			num[nnum++] = atol(argv[i]);
	}
	loops = num[0] > 0 ? num[0] : 1;
	rounds = bench_rounds(num[1]);
	if (!nmods)
		mods_scan("/");
	mods_load();
	fd = find_capture(node, sizeof(node));
	set_input(fd, node);

	for (int i = 0; i < cpus; i++) {
		fds[i] = open(node, O_RDWR | O_CLOEXEC);
		if (fds[i] < 0)
			die(node);
		memset(&fmts[i], 0, sizeof(fmts[i]));
		fmts[i].type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	}
	bench_arg("querycap", op_querycap, fds, cpus, loops, rounds, caps,
		  sizeof(caps[0]));
	bench_arg("gfmt", op_gfmt, fds, cpus, loops, rounds, fmts,
		  sizeof(fmts[0]));
	for (int i = 0; i < cpus; i++)
		close(fds[i]);
	bench_open_close(TAG, "open", node, cpus, loops / 10 > 0 ? loops / 10 : 1,
			 rounds);
	stream_frames(fd, rounds, num[2] > 0 ? num[2] : 1);
	close(fd);
	bench_life(rounds);
	return 0;
}
