/**
 * Escape attempts against the sandbox: each runs what a malicious skill script or shell command would
 * try, and asserts that it failed to reach anything outside its run. Limits are small so each attempt is fast.
 */
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../../src/infra/sandbox/index.js";
import { processesMatching } from "../../helpers/processes.js";
import { eventually } from "../../helpers/wait.js";
import { noSandboxReason, testSandbox } from "../../helpers/sandbox.js";
import { SECRET, sh, startEscapeHost, type EscapeHost } from "./harness.js";

let host: EscapeHost;
let sandbox: Sandbox;

beforeAll(async () => {
  host = await startEscapeHost();
  sandbox = await testSandbox({ limits: { processes: 64, fileSizeMb: 8, tmpMb: 8, cpuSeconds: 5 } });
});

afterAll(async () => {
  await host.close();
});

/** Output of a run that must not have seen the secret anywhere. */
function expectNoSecret(result: { stdout: string; stderr: string }): void {
  expect(result.stdout + result.stderr).not.toContain(SECRET);
}

describe.skipIf(noSandboxReason !== undefined)("sandbox escape attempts", () => {
  it("1. sees none of the gateway's environment", async () => {
    const result = await sh(sandbox, "env; echo LLM_API_KEY=$LLM_API_KEY");
    expectNoSecret(result);
    expect(result.stdout).toContain("LLM_API_KEY=\n");
    expect(result.stdout).toContain("HOME=/work");
  });

  it("2. cannot read the gateway's environ through /proc/$PPID or any other /proc entry", async () => {
    const result = await sh(sandbox, `cat /proc/$PPID/environ /proc/1/environ /proc/${process.pid}/environ; for f in /proc/[0-9]*/environ; do cat "$f"; done; echo done`);
    expectNoSecret(result);
    expect(result.stdout).toContain("done");
    expect(result.stderr).toMatch(new RegExp(`/proc/${process.pid}/environ: No such file`));
  });

  it("3. sees only its own processes in /proc, not the gateway or other host processes", async () => {
    const result = await sh(sandbox, "ls /proc | grep -E '^[0-9]+$' | wc -l; cat /proc/*/cmdline | tr '\\0' ' '");
    expect(Number(result.stdout.split("\n")[0])).toBeLessThan(8);
    expect(result.stdout).not.toMatch(/node|vitest/);
  });

  it("4. cannot read the data dir, the config or the database", async () => {
    const result = await sh(sandbox, `ls ${host.dataDir}; cat ${host.configFile} ${join(host.dataDir, "switchboard.sqlite")}; cat ${join(process.cwd(), "config/default.yaml")} | head -1`);
    expectNoSecret(result);
    expect(result.stderr).toMatch(/No such file or directory/);
    expect(result.stdout).toBe("");
  });

  it("5. cannot write into the data dir or the config", async () => {
    const result = await sh(sandbox, `mkdir -p ${host.dataDir}; echo pwned > ${host.dataDir}/pwned; echo pwned >> ${host.configFile}; echo rc=$?`);
    expect(result.stdout).toContain("rc=");
    expect(existsSync(join(host.dataDir, "pwned"))).toBe(false);
    expect(await readFile(host.configFile, "utf8")).not.toContain("pwned");
  });

  it("6. writes to /tmp land in a private /tmp that is gone afterwards", async () => {
    const name = `escape-${process.pid}-${Date.now()}`;
    const result = await sh(sandbox, `echo x > /tmp/${name} && ls /tmp`);
    expect(result.stdout).toContain(name);
    expect(existsSync(join("/tmp", name))).toBe(false);
    expect(existsSync(join(tmpdir(), name))).toBe(false);
  });

  it("7. cannot write into the gateway's home folder", async () => {
    const name = `escape-home-${process.pid}`;
    await sh(sandbox, `echo x > ${homedir()}/${name}; mkdir -p ${homedir()} && echo x > ${homedir()}/${name}`);
    expect(existsSync(join(homedir(), name))).toBe(false);
  });

  it("8. cannot change the skill folder: it is read-only", async () => {
    const result = await sh(sandbox, "echo bad >> /skill/run.py; touch /skill/new; rm /skill/SKILL.md; ls /skill", { skillDir: host.skillDir });
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(await readdir(host.skillDir)).toEqual(["SKILL.md", "run.py", "run.sh"]);
    expect(await readFile(join(host.skillDir, "run.py"), "utf8")).not.toContain("bad");
  });

  it("9. a symlink out of the run dir leads nowhere outside the sandbox", async () => {
    const result = await sh(sandbox, `ln -s ${host.configFile} link && cat link; ln -s /proc/${process.pid}/root/ root && ls root/`);
    expectNoSecret(result);
    expect(result.stderr).toMatch(/No such file or directory/);
  });

  it("10. a hard link out of the run dir fails", async () => {
    const result = await sh(sandbox, `ln ${host.configFile} hard; ln /etc/passwd hard2; ln /usr/bin/sh hard3; ls`);
    expect(result.stdout.trim()).toBe("");
    expect(result.stderr).toMatch(/(cross-device|No such file|Operation not permitted)/);
  });

  it("11. cannot reach another session's workspace", async () => {
    const result = await sh(sandbox, `cat ../session-b/private.txt ${host.workspaceB}/private.txt /workspace/../session-b/private.txt; ls /workspace/..`, {
      workspaceDir: host.workspaceA,
    });
    expectNoSecret(result);
    expect(result.stdout).not.toContain("session-b");
  });

  it("12. cannot open a TCP connection to the gateway's port", async () => {
    const before = host.accepted;
    const result = await sh(sandbox, `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${host.gatewayPort}), 2); print(s.recv(100))"`);
    expectNoSecret(result);
    expect(result.stderr).toMatch(/Connection refused|Network is unreachable/);
    expect(host.accepted).toBe(before);
  });

  it("13. cannot open a TCP connection to another loopback port or the host's addresses", async () => {
    const before = host.accepted;
    const result = await sh(sandbox, `for a in 127.0.0.1 localhost 0.0.0.0; do python3 -c "import socket; socket.create_connection(('$a', ${host.otherPort}), 2)" 2>&1 | tail -1; done`);
    expect(result.stdout.trim().split("\n")).toHaveLength(3);
    expect(result.stdout).toMatch(/refused|unreachable|Name or service not known/i);
    expect(host.accepted).toBe(before);
  });

  it("14. has no DNS and no route out", async () => {
    const result = await sh(sandbox, `getent hosts example.com; echo getent=$?; python3 -c "import socket; socket.create_connection(('1.1.1.1', 53), 2)"`);
    expect(result.stdout).toContain("getent=2");
    expect(result.stderr).toMatch(/Network is unreachable/);
  });

  it("15. a fork bomb hits the process limit and dies with the run", async () => {
    const result = await sh(sandbox, "bomb() { bomb | bomb & }; bomb; sleep 1; echo survived", { timeoutMs: 3_000 });
    expect(result.elapsedMs).toBeLessThan(5_000);
    await noneLeft("bomb");
  });

  it.each([
    ["16. setsid", "setsid sleep 61.16 &"],
    ["17. nohup", "nohup sleep 61.17 >/dev/null 2>&1 &"],
    ["18. a double fork", "(sh -c 'sleep 61.18 &' &)"],
  ])("%s escapee is dead after the run", async (_name, line) => {
    const marker = `sleep ${line.match(/61\.\d+/)?.[0]}`;
    const result = await sh(sandbox, `${line}\necho started`, { timeoutMs: 2_000 });
    expect(result.stdout).toContain("started");
    await noneLeft(marker);
  });

  it("19. a 1 GB output flood is capped and returns", async () => {
    const result = await sh(sandbox, "head -c 1073741824 /dev/zero | tr '\\0' x", { timeoutMs: 8_000, maxOutputBytes: 1_000_000 });
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stdout.length).toBeLessThan(1_000_100);
    expect(result.elapsedMs).toBeLessThan(10_000);
  });

  it("20. a disk-filling write stops at the file size limit and the /tmp size", async () => {
    const result = await sh(sandbox, "dd if=/dev/zero of=big bs=1M count=100 2>&1; dd if=/dev/zero of=/tmp/big bs=1M count=100 2>&1; ls -l big; df -m /tmp | tail -1");
    const sizes = [...result.stdout.matchAll(/(\d+) bytes .* copied/g)].map((m) => Number(m[1]));
    expect(sizes.every((size) => size <= 8 * 1024 * 1024)).toBe(true);
    expect(result.stdout + result.stderr).toMatch(/File size limit exceeded|No space left/);
  });

  it("21. a sleep past the timeout is killed, returning within the limit plus 2 s", async () => {
    const result = await sh(sandbox, "sleep 60.21", { timeoutMs: 1_000 });
    expect(result.timedOut).toBe(true);
    expect(result.elapsedMs).toBeLessThan(3_000);
    await noneLeft("sleep 60.21");
  });

  it("22. cannot signal the gateway's pid or any host process", async () => {
    const result = await sh(sandbox, `kill -9 ${process.pid}; kill -9 ${process.ppid}; kill -9 -1; echo after`);
    expect(result.stderr).toMatch(/No such process/);
    expect(process.kill(process.pid, 0)).toBe(true);
  });

  it("23. cannot ptrace the gateway", async () => {
    const code = `import ctypes, ctypes.util; libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True); print('ptrace', libc.ptrace(16, ${process.pid}, 0, 0), ctypes.get_errno())`;
    const result = await sh(sandbox, `python3 -c "${code}"`);
    expect(result.stdout).toMatch(/^ptrace -1 (3|1)$/m);
  });

  it("24. cannot read the gateway's memory", async () => {
    const result = await sh(sandbox, `cat /proc/${process.pid}/maps; head -c 100 /proc/${process.pid}/mem; ls /dev/mem /dev/kmem /dev/sda 2>&1; echo end`);
    expectNoSecret(result);
    expect(result.stdout).toMatch(/cannot access '\/dev\/mem'/);
    expect(result.stderr).toMatch(/No such file/);
  });

  it("25. runs as uid 65534 with no capabilities and cannot mount or make a new user namespace", async () => {
    const result = await sh(sandbox, "id -u; grep CapEff /proc/self/status; mount -t tmpfs x /tmp 2>&1 | head -1; unshare -U true 2>&1 | head -1");
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toBe("65534");
    expect(lines[1]).toMatch(/CapEff:\s+0+$/);
    expect(lines[2]).toMatch(/permission denied|must be superuser|Operation not permitted/i);
    expect(lines[3]).toMatch(/Operation not permitted|No space left|Permission denied/i);
  });

  it("26. sees no /etc/shadow, host keys or sockets", async () => {
    const result = await sh(sandbox, "ls /etc; ls /run /var/run /root /home 2>&1; cat /etc/shadow 2>&1");
    expect(result.stdout).not.toMatch(/shadow\n|ssh\n|docker\.sock/);
    expect(result.stdout).toMatch(/cannot open '\/etc\/shadow'|No such file/);
  });

  it("27. cannot leak the secret in any encoding: there is nothing to read", async () => {
    const result = await sh(sandbox, "for p in /proc/[0-9]*; do base64 $p/environ; rev $p/environ; od -An -tx1 $p/environ; done 2>/dev/null; env | base64");
    const encoded = [Buffer.from(SECRET).toString("base64"), Buffer.from(SECRET).toString("hex"), [...SECRET].reverse().join("")];
    for (const form of encoded) expect(result.stdout.replaceAll(/\s/g, "")).not.toContain(form);
  });

  it("28. a symlink left in the workspace does not make the next run hand its target over", async () => {
    const owner = (await stat(host.configFile)).uid;
    await sh(sandbox, `ln -s ${host.configFile} cfg; mkdir -p d && ln -s ${host.dataDir} d/data`, { workspaceDir: host.workspaceA });
    const result = await sh(sandbox, "cat cfg d/data/config.yaml; echo x >> cfg", { workspaceDir: host.workspaceA });
    expectNoSecret(result);
    expect((await stat(host.configFile)).uid).toBe(owner);
    expect((await stat(host.dataDir)).uid).toBe(owner);
  });

  it("removes the run dir afterwards, whatever the run left in it", async () => {
    const result = await sh(sandbox, "mkdir -p a/b && echo x > a/b/c && chmod 000 a/b && chmod 000 a");
    expect(result.exitCode).toBe(0);
    expect(existsSync(result.runDir)).toBe(false);
  });

  it("still runs a normal Python and shell skill, the folder read-only at /skill", async () => {
    const python = await sh(sandbox, "python3 /skill/run.py", { skillDir: host.skillDir });
    const shell = await sh(sandbox, "bash /skill/run.sh ok; echo home=$HOME cwd=$(pwd)", { skillDir: host.skillDir });
    expect(python).toMatchObject({ exitCode: 0, stdout: "python works 42\n" });
    expect(shell).toMatchObject({ exitCode: 0, stdout: "shell works ok\nhome=/work cwd=/work\n" });
  });

  it("writes into the session workspace are kept", async () => {
    const result = await sh(sandbox, "echo kept > out.txt; pwd", { workspaceDir: host.workspaceA });
    expect(result.stdout).toBe("/workspace\n");
    expect(await readFile(join(host.workspaceA, "out.txt"), "utf8")).toBe("kept\n");
  });
});

/**
 * The run's end kills its PID namespace; the kernel delivers those SIGKILLs asynchronously, so on a loaded machine a
 * process may take a moment to be gone. One still there after two seconds has escaped.
 */
async function noneLeft(marker: string): Promise<void> {
  await eventually(async () => (await processesMatching(marker)).length === 0, `no process matching "${marker}"`, 2_000);
}
