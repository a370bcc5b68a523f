// The `phasor` command's way into a waiting standby (electron/cli/standby) without starting Node: a file
// job's command line goes to this user's standby for this build and Node, exactly as client.ts sends it,
// and its output and exit status come back. Anything else (not a file job, no standby, refused, a folder
// open to others) runs the Node CLI in this process's place, told that the standby was tried
// (PHASOR_STANDBY_TRIED), so nothing is asked twice. Node's own start (60–130 ms) is what this saves.
//
//   phasor-client ROOT [phasor arguments...]     (bin/phasor runs it; ROOT is the package's folder)
//
// Built by native/client/build.mjs with the system's C compiler; POSIX only.

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

// The frames of electron/cli/standby/protocol.ts: a kind byte, the payload's length (uint32 LE), the payload.
enum { F_JOB = 0x4a, F_SIGNAL = 0x53, F_ACCEPT = 0x41, F_STDOUT = 0x4f, F_STDERR = 0x45, F_EXIT = 0x58, F_REFUSE = 0x4e };
#define MAX_PAYLOAD (16u * 1024 * 1024)

// paths.ts: the commands a standby runs, and the variables not compared between client and standby
static const char *const kCommands[] = {"info",   "peaks",     "measure", "spectrogram",
                                         "psd",    "filter",    "correlate", "extract"};
static const char *const kVolatile[] = {"PWD", "OLDPWD", "_", "SHLVL", "COLUMNS", "LINES", "PHASOR_STANDBY",
                                        "PHASOR_STANDBY_TRIED"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *root;
static int nargs;
static char **args;

typedef struct {
  char *p;
  size_t n, cap;
} Buf;

static void put(Buf *b, const void *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      fputs("phasor: out of memory\n", stderr);
      exit(1);
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void puts_(Buf *b, const char *s) { put(b, s, strlen(s)); }

// A string as JSON.stringify writes it (other bytes as they are: the standby reads the frame as UTF-8).
static void putJson(Buf *b, const char *s) {
  puts_(b, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    char esc[8];
    switch (*c) {
      case '"': puts_(b, "\\\""); break;
      case '\\': puts_(b, "\\\\"); break;
      case '\b': puts_(b, "\\b"); break;
      case '\f': puts_(b, "\\f"); break;
      case '\n': puts_(b, "\\n"); break;
      case '\r': puts_(b, "\\r"); break;
      case '\t': puts_(b, "\\t"); break;
      default:
        if (*c < 0x20) {
          snprintf(esc, sizeof esc, "\\u%04x", *c);
          puts_(b, esc);
        } else {
          put(b, c, 1);
        }
    }
  }
  puts_(b, "\"");
}

// The `node` that `#!/usr/bin/env node` would run: the first executable file named node on PATH.
static char *findNode(void) {
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *p = path;;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char cand[PATH_MAX];
    if (snprintf(cand, sizeof cand, "%.*s/node", (int)(len ? len : 1), len ? p : ".") < (int)sizeof cand) {
      struct stat st;
      if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) return strdup(cand);
    }
    if (!end) return NULL;
    p = end + 1;
  }
}

// The Node CLI in this process's place; `tried`: the standby was asked (or could not be), do not ask again.
static _Noreturn void runNode(int tried) {
  if (tried) setenv("PHASOR_STANDBY_TRIED", "1", 1);
  signal(SIGPIPE, SIG_DFL);
  char **argv = calloc((size_t)nargs + 3, sizeof *argv);
  char script[PATH_MAX];
  snprintf(script, sizeof script, "%s/bin/phasor.js", root);
  char *node = findNode();
  argv[0] = "node";
  argv[1] = script;
  for (int i = 0; i < nargs; i++) argv[i + 2] = args[i];
  if (node) execv(node, argv);
  else execvp("node", argv);
  fprintf(stderr, "phasor: cannot run node: %s\n", strerror(errno));
  exit(127);
}

// path.normalize of a POSIX path: no empty or "." parts, ".." taken back where it can be.
static void normalize(char *path) {
  int absolute = path[0] == '/';
  char *parts[PATH_MAX / 2];
  int n = 0;
  for (char *save = NULL, *t = strtok_r(path, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
    if (strcmp(t, ".") == 0) continue;
    if (strcmp(t, "..") == 0 && n > 0 && strcmp(parts[n - 1], "..") != 0) n--;
    else if (!(strcmp(t, "..") == 0 && absolute)) parts[n++] = t;
  }
  char out[PATH_MAX] = "";
  size_t o = 0;
  if (absolute) out[o++] = '/';
  for (int i = 0; i < n; i++) o += (size_t)snprintf(out + o, sizeof out - o, "%s%s", i ? "/" : "", parts[i]);
  if (o == 0) out[o++] = '.';
  out[o < sizeof out ? o : sizeof out - 1] = 0;
  strcpy(path, out);
}

// paths.ts standbyDir: $XDG_RUNTIME_DIR/phasor, else phasor-<uid> in os.tmpdir().
static void standbyDir(char *dir, size_t size) {
  const char *runtime = getenv("XDG_RUNTIME_DIR");
  if (runtime && *runtime) {
    snprintf(dir, size, "%s/phasor", runtime);
  } else {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = getenv("TMP");
    if (!tmp || !*tmp) tmp = getenv("TEMP");
    if (!tmp || !*tmp) tmp = "/tmp";
    snprintf(dir, size, "%s/phasor-%u", tmp, (unsigned)getuid());
  }
  normalize(dir);
}

static long long mtimeNs(const struct stat *st) {
#ifdef __APPLE__
  return (long long)st->st_mtimespec.tv_sec * 1000000000LL + st->st_mtimespec.tv_nsec;
#else
  return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
#endif
}

// paths.ts standbySocket: the key of this build and this Node (FNV-1a, 64 bits, over the same text).
static int standbySocket(char *sock, size_t size, const char *dir) {
  char main[PATH_MAX], script[PATH_MAX], node[PATH_MAX];
  snprintf(script, sizeof script, "%s/dist/electron/cli/main.js", root);
  char *found = findNode();
  if (!realpath(script, main) || !found || !realpath(found, node)) return -1;
  free(found);
  struct stat built, exe;
  if (stat(main, &built) != 0 || stat(node, &exe) != 0) return -1;
  Buf text = {0};
  char num[64];
  // [main, mtimeNs, ino, node, mtimeNs, ino].join('\0'), as paths.ts hashes it
  const struct stat *of[2] = {&built, &exe};
  const char *path[2] = {main, node};
  for (int i = 0; i < 2; i++) {
    if (i) put(&text, "", 1);
    puts_(&text, path[i]);
    snprintf(num, sizeof num, "%lld", mtimeNs(of[i]));
    put(&text, "", 1);
    puts_(&text, num);
    snprintf(num, sizeof num, "%llu", (unsigned long long)of[i]->st_ino);
    put(&text, "", 1);
    puts_(&text, num);
  }
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < text.n; i++) h = (h ^ (unsigned char)text.p[i]) * 0x100000001b3ULL;
  free(text.p);
  return snprintf(sock, size, "%s/standby-%016llx.sock", dir, (unsigned long long)h) < (int)size ? 0 : -1;
}

static int contains(const char *data, size_t n, const char *pat) {
  size_t m = strlen(pat);
  for (size_t i = 0; i + m <= n; i++) {
    if (memcmp(data + i, pat, m) == 0) return 1;
  }
  return 0;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

// paths.ts startingStandby: the pid file beside the socket names a live standby process.
static int starting(const char *sock) {
  char file[PATH_MAX + 96], proc[64], buf[4096];
  snprintf(file, sizeof file, "%s.starting", sock);
  FILE *f = fopen(file, "r");
  if (!f) return 0;
  long pid = 0;
  int ok = fscanf(f, "%ld", &pid) == 1 && pid > 0;
  fclose(f);
  if (!ok) return 0;
  snprintf(proc, sizeof proc, "/proc/%ld/cmdline", pid);
  f = fopen(proc, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return contains(buf, n, "__standby");
}

// client.ts startedSoon: wait up to 3 s for a standby that is starting.
static int startedSoon(const char *sock) {
  double deadline = nowMs() + 3000;
  while (starting(sock) && nowMs() < deadline) {
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    if (exists(sock)) return 1;
  }
  return exists(sock);
}

// paths.ts privateDirProblem(dir, false), into `why`; 0 when the folder is fine.
static int privateDirProblem(const char *dir, char *why, size_t size) {
  struct stat st;
  if (lstat(dir, &st) != 0) {
    snprintf(why, size, "does not exist");
  } else if (!S_ISDIR(st.st_mode)) {
    snprintf(why, size, "is not a folder");
  } else if (st.st_uid != getuid()) {
    snprintf(why, size, "belongs to user %u, not to this user (%u)", (unsigned)st.st_uid, (unsigned)getuid());
  } else if (st.st_mode & 077) {
    snprintf(why, size, "may be entered by other users (mode %o)", (unsigned)(st.st_mode & 0777));
  } else {
    return 0;
  }
  return 1;
}

static int isVolatile(const char *name, size_t len) {
  for (size_t i = 0; i < COUNT(kVolatile); i++) {
    if (strlen(kVolatile[i]) == len && memcmp(kVolatile[i], name, len) == 0) return 1;
  }
  return 0;
}

static int byName(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  size_t lx = strcspn(x, "="), ly = strcspn(y, "=");
  int c = memcmp(x, y, lx < ly ? lx : ly);
  return c ? c : (lx > ly) - (lx < ly);
}

// client.ts's JobRequest: what a process of its own would have run with.
static void request(Buf *b) {
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) runNode(1);
  puts_(b, "{\"argv\":[");
  for (int i = 0; i < nargs; i++) {
    if (i) puts_(b, ",");
    putJson(b, args[i]);
  }
  puts_(b, "],\"cwd\":");
  putJson(b, cwd);
  puts_(b, ",\"env\":{");
  size_t n = 0;
  while (environ[n]) n++;
  char **env = malloc((n + 1) * sizeof *env);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const char *eq = strchr(environ[i], '=');
    if (eq && eq != environ[i] && !isVolatile(environ[i], (size_t)(eq - environ[i]))) env[m++] = environ[i];
  }
  qsort(env, m, sizeof *env, byName);
  for (size_t i = 0; i < m; i++) {
    // a name set twice: the first, as Node's process.env has it
    if (i && byName(&env[i - 1], &env[i]) == 0) continue;
    size_t len = strcspn(env[i], "=");
    char *name = strndup(env[i], len);
    if (b->p[b->n - 1] != '{') puts_(b, ",");
    putJson(b, name);
    puts_(b, ":");
    putJson(b, env[i] + len + 1);
    free(name);
  }
  free(env);
  mode_t mask = umask(0);
  umask(mask);
  char tail[128];
  snprintf(tail, sizeof tail, "},\"umask\":%u,\"stdoutIsTTY\":%s,\"stderrIsTTY\":%s", (unsigned)mask,
           isatty(1) ? "true" : "false", isatty(2) ? "true" : "false");
  puts_(b, tail);
  struct winsize ws;
  if (isatty(2) && ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    snprintf(tail, sizeof tail, ",\"columns\":%u", (unsigned)ws.ws_col);
    puts_(b, tail);
  }
  puts_(b, "}");
}

static int writeAll(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int sendFrame(int sock, int kind, const char *payload, size_t n) {
  unsigned char head[5] = {(unsigned char)kind, (unsigned char)n, (unsigned char)(n >> 8),
                           (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
  return writeAll(sock, head, 5) || writeAll(sock, payload, n) ? -1 : 0;
}

// The value of "key" in the standby's JSON.stringify output, a string (decoded into `out`) or a number.
static int jsonString(const char *json, size_t n, const char *key, Buf *out) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":\"", key);
  size_t lp = strlen(pat);
  for (size_t i = 0; i + lp <= n; i++) {
    if (memcmp(json + i, pat, lp) != 0) continue;
    for (size_t j = i + lp; j < n; j++) {
      char c = json[j];
      if (c == '"') return 0;
      if (c != '\\' || j + 1 >= n) {
        put(out, &c, 1);
        continue;
      }
      c = json[++j];
      const char *plain = c == 'n' ? "\n" : c == 't' ? "\t" : c == 'r' ? "\r" : c == 'b' ? "\b" : c == 'f' ? "\f" : NULL;
      if (c == '"' || c == '\\' || c == '/') plain = &c;
      if (plain) {
        put(out, plain, 1);
      } else if (c == 'u' && j + 4 < n) {
        char hex[5] = {json[j + 1], json[j + 2], json[j + 3], json[j + 4], 0};
        unsigned u = (unsigned)strtoul(hex, NULL, 16);
        j += 4;
        unsigned char utf[3] = {(unsigned char)u, 0, 0};
        size_t k = 1;
        if (u >= 0x800) {
          utf[0] = (unsigned char)(0xe0 | u >> 12);
          utf[1] = (unsigned char)(0x80 | ((u >> 6) & 63));
          utf[2] = (unsigned char)(0x80 | (u & 63));
          k = 3;
        } else if (u >= 0x80) {
          utf[0] = (unsigned char)(0xc0 | u >> 6);
          utf[1] = (unsigned char)(0x80 | (u & 63));
          k = 2;
        }
        put(out, utf, k);
      }
    }
    return -1;
  }
  return -1;
}

static int signalPipe[2];
static void onSignal(int sig) {
  int saved = errno;
  char c = (char)sig;
  (void)!write(signalPipe[1], &c, 1);
  errno = saved;
}

// client.ts relay: the job's frames until its exit status (or, refused before it was taken, Node's CLI).
static _Noreturn void relay(int sock) {
  Buf job = {0};
  request(&job);
  if (pipe(signalPipe) != 0) runNode(1);
  fcntl(signalPipe[0], F_SETFD, FD_CLOEXEC);
  fcntl(signalPipe[1], F_SETFD, FD_CLOEXEC);
  struct sigaction sa = {0};
  sa.sa_handler = onSignal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  if (sendFrame(sock, F_JOB, job.p, job.n) != 0) runNode(1);
  free(job.p);
  int accepted = 0, signals = 0, outOpen[3] = {0, 1, 1};
  Buf in = {0};
  char chunk[65536];
  for (;;) {
    struct pollfd fds[2] = {{sock, POLLIN, 0}, {signalPipe[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents & POLLIN) {
      char s[16];
      ssize_t k = read(signalPipe[0], s, sizeof s);
      for (ssize_t i = 0; i < k; i++, signals++) sendFrame(sock, F_SIGNAL, "SIGINT", 6);
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t got = read(sock, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    put(&in, chunk, (size_t)got);
    size_t at = 0;
    int broken = 0;
    while (in.n - at >= 5) {
      const unsigned char *h = (const unsigned char *)in.p + at;
      uint32_t len = (uint32_t)h[1] | (uint32_t)h[2] << 8 | (uint32_t)h[3] << 16 | (uint32_t)h[4] << 24;
      if (len > MAX_PAYLOAD) {
        broken = 1;  // not a standby's frames: as if it had closed
        break;
      }
      if (in.n - at < 5 + (size_t)len) break;
      const char *payload = in.p + at + 5;
      at += 5 + len;
      if (h[0] == F_ACCEPT) {
        accepted = 1;
      } else if (h[0] == F_STDOUT || h[0] == F_STDERR) {
        int fd = h[0] == F_STDOUT ? 1 : 2;
        if (outOpen[fd] && writeAll(fd, payload, len) != 0) outOpen[fd] = 0;
      } else if (h[0] == F_EXIT) {
        const char *code = NULL;
        for (size_t i = 0; i + 7 <= len && !code; i++) {
          if (memcmp(payload + i, "\"code\":", 7) == 0) code = payload + i + 7;
        }
        if (!code) {
          broken = 1;
          break;
        }
        exit((int)strtol(code, NULL, 10));
      } else if (h[0] == F_REFUSE && !accepted) {
        Buf reason = {0};
        int warn = contains(payload, len, "\"warn\":true");
        if (warn && jsonString(payload, len, "reason", &reason) == 0) {
          fprintf(stderr, "phasor: warning: the standby was not used: %s\n", reason.p ? reason.p : "");
        }
        close(sock);
        runNode(1);
      }
    }
    if (broken) break;
    memmove(in.p, in.p + at, in.n - at);
    in.n -= at;
  }
  close(sock);
  if (!accepted) runNode(1);  // it ended before taking the job (its idle time was up)
  if (signals > 0) exit(130);
  fputs("phasor: the standby process ended before the job did (its log is beside its socket)\n", stderr);
  exit(1);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: phasor-client ROOT [phasor arguments...] (bin/phasor runs it)\n", stderr);
    return 2;
  }
  root = argv[1];
  nargs = argc - 2;
  args = argv + 2;
  // client.ts wanted: a file job, PHASOR_STANDBY auto (or unset) or manual
  const char *mode = getenv("PHASOR_STANDBY");
  if (getenv("PHASOR_STANDBY_TRIED")) runNode(0);
  if (mode && *mode && strcmp(mode, "auto") != 0 && strcmp(mode, "manual") != 0) runNode(0);
  const char *command = NULL;
  for (int i = 0; i < nargs && !command; i++) {
    if (args[i][0] != '-') command = args[i];
  }
  int fileJob = 0;
  for (size_t i = 0; command && i < COUNT(kCommands); i++) fileJob |= strcmp(command, kCommands[i]) == 0;
  if (!fileJob) runNode(0);

  char dir[PATH_MAX], sock[PATH_MAX + 64], why[128];
  standbyDir(dir, sizeof dir);
  if (standbySocket(sock, sizeof sock, dir) != 0) runNode(1);
  if (!exists(sock) && !startedSoon(sock)) runNode(1);
  if (privateDirProblem(dir, why, sizeof why)) {
    fprintf(stderr, "phasor: warning: %s %s; its standby is not used\n", dir, why);
    runNode(1);
  }
  struct sockaddr_un addr = {0};
  addr.sun_family = AF_UNIX;
  if (strlen(sock) >= sizeof addr.sun_path) runNode(1);
  strcpy(addr.sun_path, sock);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) runNode(1);
  relay(fd);
}
