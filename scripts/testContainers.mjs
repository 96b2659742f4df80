// Real containers for the tests that need them (test files with "container" in their name), built
// offline and torn down afterwards: see /work/shared/docs/containers.md for the measured recipe.
//   const { env, stop } = await startContainerEnvironment();
// gives two images built from the host's own binaries (no registry, no download), a private dockerd
// with both imported, a private rootful podman store with both imported, and an extracted rootfs for
// unshare. `env` is what the test processes need to reach them; an engine that could not be set up is
// recorded there (ROLLOUT_EVIDENCE_DOCKER_ERROR, ROLLOUT_EVIDENCE_PODMAN_ERROR) instead of thrown, so
// the tests that need it fail with the reason while the others still run.
// Every step logs its duration to stderr as one line starting "containers: ".
import { execFile, spawn } from 'node:child_process';
import { accessSync, closeSync, constants as fsConstants, openSync, readFileSync } from 'node:fs';
import { chmod, chown, copyFile, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

export const containerLabel = 'rollout-evidence-test';
export const images = { busybox: 'rollout-evidence-probe:busybox', procps: 'rollout-evidence-probe:procps' };
// The host's procps tools copied into the second image: Debian's busybox has no pkill or pgrep.
const procpsTools = ['/usr/bin/pkill', '/usr/bin/pgrep', '/usr/bin/ps'];
// Engines' daemons and tools live in sbin, which a non-login PATH can lack.
const searchPath = [
  ...(process.env.PATH ?? '').split(delimiter).filter(Boolean),
  '/usr/local/sbin',
  '/usr/sbin',
  '/sbin',
  '/usr/bin',
  '/bin',
];
const toolEnv = { ...process.env, PATH: [...new Set(searchPath)].join(delimiter) };

/** Sets everything up; resolves `{ env, stop }`. Throws only when the images cannot be built at all. */
export async function startContainerEnvironment() {
  const started = Date.now();
  const scratch = await mkdtemp(join(tmpdir(), 'rollout-evidence-containers-'));
  const state = {
    scratch,
    dockerd: undefined,
    dockerReady: false,
    podmanReady: false,
    podmanEnv: undefined,
    dockerEnv: undefined,
  };
  let stopping;
  // Idempotent and never throws: test.mjs calls it from a finally and from signal handlers.
  const stop = () => (stopping ??= tearDown(state).catch((error) => log(`teardown failed: ${message(error)}`)));
  try {
    const tars = await timed('images built (rootfs + tar, busybox and procps)', () => buildImages(scratch));
    const testRootfs = await timed('unshare rootfs extracted', () => extractUnshareRootfs(scratch, tars.busybox));
    const docker = dockerSettings(scratch);
    const podman = podmanSettings(scratch);
    state.dockerEnv = { ...toolEnv, ...docker.env };
    state.podmanEnv = { ...toolEnv, ...podman.env };
    const env = { ...docker.env, ...podman.env, ROLLOUT_EVIDENCE_TEST_ROOTFS: testRootfs };
    // The two engines are independent; setting them up side by side halves the wait on two cores.
    const [dockerError, podmanError] = await Promise.all([
      startDocker(state, docker, tars).then(
        () => undefined,
        (error) => message(error),
      ),
      startPodman(state, podman, tars).then(
        () => undefined,
        (error) => message(error),
      ),
    ]);
    if (dockerError) {
      env.ROLLOUT_EVIDENCE_DOCKER_ERROR = dockerError;
      log(`docker unavailable: ${dockerError}`);
    }
    if (podmanError) {
      env.ROLLOUT_EVIDENCE_PODMAN_ERROR = podmanError;
      log(`podman unavailable: ${podmanError}`);
    }
    log(`environment ready in ${seconds(Date.now() - started)} (scratch ${scratch})`);
    return { env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

// ---- images -------------------------------------------------------------------------------------

async function buildImages(scratch) {
  const busyboxRoot = join(scratch, 'rootfs-busybox');
  const procpsRoot = join(scratch, 'rootfs-procps');
  await Promise.all([
    buildBusyboxRootfs(busyboxRoot),
    buildBusyboxRootfs(procpsRoot).then(() => addProcps(procpsRoot)),
  ]);
  const tars = { busybox: join(scratch, 'busybox.tar'), procps: join(scratch, 'procps.tar') };
  // Numeric owners: the image's users exist only in its own /etc/passwd.
  await Promise.all([
    run('tar', ['--numeric-owner', '-C', busyboxRoot, '-cf', tars.busybox, '.']),
    run('tar', ['--numeric-owner', '-C', procpsRoot, '-cf', tars.procps, '.']),
  ]);
  return tars;
}

async function buildBusyboxRootfs(root) {
  const busybox = ['/bin/busybox', '/usr/bin/busybox'].find(isExecutable);
  if (!busybox) throw new Error('no /bin/busybox: install the Debian package busybox-static (.ci/run does)');
  // Only a static busybox runs in an image that has no libraries.
  const linkage = await run('ldd', [busybox]).catch((error) => message(error));
  if (!/not a dynamic executable/.test(linkage))
    throw new Error(`${busybox} is dynamically linked: install busybox-static instead of busybox`);
  for (const folder of ['bin', 'etc', 'root', 'home/sandbox', 'home/other', 'tmp', 'proc', 'dev', 'sys']) {
    await mkdir(join(root, folder), { recursive: true });
  }
  await chmod(join(root, 'tmp'), 0o1777);
  await chmod(join(root, 'root'), 0o700);
  await chown(join(root, 'home/sandbox'), 1000, 1000);
  await chown(join(root, 'home/other'), 1001, 1001);
  await copyFile(busybox, join(root, 'bin/busybox'));
  await chmod(join(root, 'bin/busybox'), 0o755);
  const applets = (await run(busybox, ['--list']))
    .split('\n')
    .filter((name) => /^[\w.[-]+$/.test(name) && name !== 'busybox');
  for (const applet of new Set([...applets, 'sh'])) await symlink('busybox', join(root, 'bin', applet));
  await writeFile(
    join(root, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/sh\nsandbox:x:1000:1000::/home/sandbox:/bin/sh\nother:x:1001:1001::/home/other:/bin/sh\n',
  );
  await writeFile(join(root, 'etc/group'), 'root:x:0:\nsandbox:x:1000:\nother:x:1001:\n');
}

/** The host's procps binaries and every library ldd lists for them, at the same absolute paths. */
async function addProcps(root) {
  const files = new Set();
  for (const tool of procpsTools) {
    if (!isExecutable(tool)) throw new Error(`no ${tool}: install the Debian package procps (.ci/run does)`);
    files.add(tool);
    for (const line of (await run('ldd', [tool])).split('\n')) {
      if (/not found/.test(line)) throw new Error(`ldd ${tool}: ${line.trim()}`);
      // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)" and the loader "/lib64/ld-linux-x86-64.so.2 (0x…)";
      // linux-vdso has no file.
      const path = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line)?.[1];
      if (path) files.add(path);
    }
  }
  for (const file of files) {
    const target = join(root, file);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file, target); // follows symlinks: the image gets the real file under the listed name
    await chmod(target, (await stat(file)).mode & 0o7777);
  }
}

/** A separate copy of the busybox rootfs for unshare, which (unlike the engines) supplies no /dev. */
async function extractUnshareRootfs(scratch, busyboxTar) {
  const root = join(scratch, 'unshare-rootfs');
  await mkdir(root);
  await run('tar', ['--numeric-owner', '-xpf', busyboxTar, '-C', root]);
  await run('mknod', ['-m', '666', join(root, 'dev/null'), 'c', '1', '3']);
  return root;
}

// ---- docker -------------------------------------------------------------------------------------

function dockerSettings(scratch) {
  const socket = join(scratch, 'docker.sock');
  return {
    socket,
    pidFile: join(scratch, 'dockerd.pid'),
    execRoot: join(scratch, 'docker-exec'),
    log: join(scratch, 'dockerd.log'),
    args: [
      '--host',
      `unix://${socket}`,
      '--data-root',
      join(scratch, 'docker-data'),
      '--exec-root',
      join(scratch, 'docker-exec'),
      '--pidfile',
      join(scratch, 'dockerd.pid'),
      '--iptables=false',
      '--ip6tables=false',
      '--ip-masq=false',
      '--bridge=none',
      '--storage-driver=overlay2',
    ],
    // Set even when docker fails, so no test can reach a system daemon by accident.
    env: { DOCKER_HOST: `unix://${socket}` },
  };
}

async function startDocker(state, docker, tars) {
  const dockerd = findProgram('dockerd');
  if (!dockerd) throw new Error('no dockerd: install the Debian package docker.io (.ci/run does)');
  if (!findProgram('docker')) throw new Error('no docker CLI: install the Debian package docker.io (.ci/run does)');
  await timed('dockerd ready', async () => {
    // Detached, its output to a file of its own and no pipe of ours: a daemon that inherits the
    // caller's pipe keeps whoever reads it waiting forever (containers.md, section 1 pitfall).
    const logFd = openSync(docker.log, 'a');
    let child;
    try {
      child = spawn(dockerd, docker.args, { detached: true, stdio: ['ignore', logFd, logFd], env: toolEnv });
    } finally {
      closeSync(logFd);
    }
    state.dockerd = child;
    let exited;
    child.on('error', (error) => (exited = `could not start ${dockerd}: ${error.message}`));
    child.on('exit', (code, signal) => (exited = `dockerd exited (${signal ?? code}) before answering`));
    child.unref();
    const deadline = Date.now() + 20_000;
    while (!(await ping(docker.socket))) {
      if (exited || Date.now() > deadline) {
        // The log goes with the scratch dir at teardown: quote its end.
        throw new Error(`${exited ?? 'dockerd did not answer /_ping within 20 s'}; its log ends:\n${tail(docker.log)}`);
      }
      await sleep(50);
    }
  });
  state.dockerReady = true;
  await timed('docker images imported', () =>
    Promise.all([
      run('docker', ['import', tars.busybox, images.busybox], state.dockerEnv),
      run('docker', ['import', tars.procps, images.procps], state.dockerEnv),
    ]),
  );
  await timed('docker run --init checked', () =>
    run(
      'docker',
      ['run', '--rm', '--init', '--network', 'none', '--label', containerLabel, images.busybox, 'true'],
      state.dockerEnv,
    ),
  );
}

/** True when the Engine API answers GET /_ping with OK over the unix socket. */
function ping(socketPath) {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', method: 'GET', timeout: 2_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve(response.statusCode === 200 && body.trim() === 'OK'));
      response.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

// ---- podman -------------------------------------------------------------------------------------

function podmanSettings(scratch) {
  const conf = join(scratch, 'containers.conf');
  const storageConf = join(scratch, 'storage.conf');
  return {
    conf,
    storageConf,
    tmpDir: join(scratch, 'podman-tmp'),
    graphRoot: join(scratch, 'podman-root'),
    runRoot: join(scratch, 'podman-run'),
    env: { CONTAINERS_CONF: conf, CONTAINERS_STORAGE_CONF: storageConf },
  };
}

async function startPodman(state, podman, tars) {
  if (!findProgram('podman')) throw new Error('no podman: install the Debian packages podman runc tini (.ci/run does)');
  const toml = (value) => JSON.stringify(value); // plain paths: a JSON string is a TOML basic string
  // The six settings containers.md section 2 found necessary here (catatonit absent, no
  // CAP_SYS_RESOURCE for podman's default nofile, crun failing on hybrid cgroups, no systemd), plus
  // tmp_dir, so podman's per-boot state and event log stay in the scratch dir rather than /run/libpod.
  await writeFile(
    podman.conf,
    [
      '[containers]',
      'init_path = "/usr/bin/tini-static"',
      'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]',
      'netns = "none"',
      '',
      '[engine]',
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `tmp_dir = ${toml(podman.tmpDir)}`,
      '',
    ].join('\n'),
  );
  await writeFile(
    podman.storageConf,
    [
      '[storage]',
      'driver = "overlay"',
      `graphroot = ${toml(podman.graphRoot)}`,
      `runroot = ${toml(podman.runRoot)}`,
      '',
    ].join('\n'),
  );
  state.podmanReady = true; // from here on teardown has a store to clean
  await timed('podman images imported', async () => {
    // One at a time: two first-time imports into a fresh store race to initialise it.
    await run('podman', ['import', '--quiet', tars.busybox, images.busybox], state.podmanEnv);
    await run('podman', ['import', '--quiet', tars.procps, images.procps], state.podmanEnv);
  });
  await timed('podman run --init checked', () =>
    run('podman', ['run', '--rm', '--init', '--label', containerLabel, images.busybox, 'true'], state.podmanEnv),
  );
}

// ---- teardown -----------------------------------------------------------------------------------

async function tearDown(state) {
  const started = Date.now();
  if (state.dockerReady) {
    await timed('docker containers and images removed', async () => {
      await removeLabelled('docker', ['rm', '-f'], state.dockerEnv);
      await run('docker', ['rmi', '-f', images.busybox, images.procps], state.dockerEnv).catch(warn);
    });
  }
  if (state.podmanReady) {
    await timed('podman containers and images removed', async () => {
      await removeLabelled('podman', ['rm', '-f', '-t', '0'], state.podmanEnv);
      await run('podman', ['rmi', '-f', images.busybox, images.procps], state.podmanEnv).catch(warn);
    });
  }
  if (state.dockerd) await timed('dockerd stopped', () => stopDockerd(state));
  await timed('mounts under the scratch dir unmounted', () => unmountUnder(state.scratch));
  await timed('scratch dir removed', () =>
    rm(state.scratch, { recursive: true, force: true, maxRetries: 3 }).catch(warn),
  );
  log(`teardown done in ${seconds(Date.now() - started)}`);
}

async function removeLabelled(engine, removeArgs, env) {
  const ids = (await run(engine, ['ps', '-aq', '--filter', `label=${containerLabel}`], env).catch(warn)) ?? '';
  const list = ids.split('\n').filter(Boolean);
  if (list.length > 0) await run(engine, [...removeArgs, ...list], env).catch(warn);
}

/** TERM to the pid in dockerd's pidfile (the pid we spawned if it never wrote one), KILL if it lingers. */
async function stopDockerd(state) {
  const docker = dockerSettings(state.scratch);
  const pid = Number(readText(docker.pidFile)?.trim()) || state.dockerd.pid;
  // dockerd's own containerd, which a dockerd that had to be killed would leave behind.
  const containerdPid = Number(readText(join(docker.execRoot, 'containerd/containerd.pid'))?.trim()) || undefined;
  if (pid && alive(pid)) {
    signal(pid, 'SIGTERM');
    if (!(await waitForExit(pid, 15_000))) {
      warn(new Error(`dockerd ${pid} ignored SIGTERM for 15 s; sending SIGKILL`));
      signal(pid, 'SIGKILL');
      await waitForExit(pid, 5_000);
    }
  }
  if (containerdPid && alive(containerdPid)) {
    signal(containerdPid, 'SIGKILL');
    await waitForExit(containerdPid, 5_000);
  }
}

/** Unmounts whatever the engines left mounted under `folder` (podman's overlay bind mount, for one), deepest first. */
async function unmountUnder(folder) {
  for (let round = 0; round < 5; round++) {
    const points = mountPointsUnder(folder);
    if (points.length === 0) return;
    // A mount hidden under another one cannot be reached by path yet: it fails quietly this round and
    // goes in the next, once the one on top is gone.
    for (const point of points) {
      await run('umount', ['-R', point]).catch(() => run('umount', ['-l', point]).catch(() => undefined));
    }
  }
  const left = mountPointsUnder(folder);
  if (left.length > 0) warn(new Error(`still mounted: ${left.join(', ')}`));
}

function mountPointsUnder(folder) {
  const points = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter(Boolean)
    // /proc/self/mounts writes space, tab, newline and backslash as octal escapes.
    .map((point) => point.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8))))
    .filter((point) => point === folder || point.startsWith(folder + '/'));
  return [...new Set(points)].sort((a, b) => b.split('/').length - a.split('/').length || b.length - a.length);
}

// ---- small helpers ------------------------------------------------------------------------------

/** Runs a program with an argv array (no shell), resolves its stdout; rejects with its stderr. */
function run(command, args, env = toolEnv, timeout = 120_000) {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { env, timeout, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')}: ${(stderr || error.message).trim()}`));
        else resolve(stdout);
      },
    );
  });
}

async function timed(step, action) {
  const started = Date.now();
  const result = await action();
  log(`${step} in ${seconds(Date.now() - started)}`);
  return result;
}

function findProgram(name) {
  for (const folder of searchPath) {
    const path = join(folder, name);
    if (isExecutable(path)) return path;
  }
  return undefined;
}

function isExecutable(path) {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Alive and not a zombie: an exited dockerd is our child until node reaps it. */
function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const status = readText(`/proc/${pid}/stat`);
  return status === undefined ? false : !/^\d+ \(.*\) Z/s.test(status);
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function tail(path) {
  return (readText(path) ?? '').split('\n').slice(-15).join('\n');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const message = (error) => (error instanceof Error ? error.message : String(error));
const log = (line) => process.stderr.write(`containers: ${line}\n`);
const warn = (error) => {
  log(`warning: ${message(error)}`);
  return undefined;
};
