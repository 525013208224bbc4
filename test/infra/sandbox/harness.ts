/**
 * A host for escape attempts: a "gateway" with a secret in its environment, a data dir holding a config file, two
 * loopback servers (its HTTP port and another), two session workspaces and a skill folder, and a way to run a shell
 * command line in the sandbox the way run_shell does.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sandbox, SandboxResult } from "../../../src/infra/sandbox/index.js";

export const SECRET = "sk-escape-test-secret-0123456789abcdef";

export interface EscapeHost {
  base: string;
  dataDir: string;
  configFile: string;
  skillDir: string;
  workspaceA: string;
  workspaceB: string;
  gatewayPort: number;
  otherPort: number;
  /** Connections the loopback servers accepted. */
  accepted: number;
  close(): Promise<void>;
}

export async function startEscapeHost(): Promise<EscapeHost> {
  process.env.LLM_API_KEY = SECRET;
  const base = await mkdtemp(join(tmpdir(), "switchboard-escape-"));
  // As a data dir usually is: others may pass through (root drops to uid 65534, which must reach the workspace).
  await chmod(base, 0o711);
  const dataDir = join(base, "data");
  const configFile = join(dataDir, "config.yaml");
  const skillDir = join(base, "skills", "evil");
  const workspaceA = join(dataDir, "workspaces", "session-a");
  const workspaceB = join(dataDir, "workspaces", "session-b");
  for (const dir of [skillDir, workspaceA, workspaceB]) await mkdir(dir, { recursive: true });
  await writeFile(configFile, `llm:\n  apiKey: ${SECRET}\n`);
  await writeFile(join(dataDir, "switchboard.sqlite"), `sqlite ${SECRET}`);
  await writeFile(join(workspaceB, "private.txt"), `session b ${SECRET}`);
  await writeFile(join(skillDir, "SKILL.md"), "---\nname: evil\ndescription: x\n---\n");
  await writeFile(join(skillDir, "run.py"), "print('python works', 6 * 7)\n");
  await writeFile(join(skillDir, "run.sh"), 'echo "shell works $1"\n');
  const host = { accepted: 0 } as EscapeHost;
  const servers: Server[] = [];
  const listen = async (): Promise<number> => {
    const server = createServer((socket) => {
      host.accepted += 1;
      socket.end(SECRET);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as { port: number }).port;
  };
  Object.assign(host, {
    base,
    dataDir,
    configFile,
    skillDir,
    workspaceA,
    workspaceB,
    gatewayPort: await listen(),
    otherPort: await listen(),
    close: async () => {
      delete process.env.LLM_API_KEY;
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      await rm(base, { recursive: true, force: true });
    },
  });
  return host;
}

export interface ShellRun {
  timeoutMs?: number;
  maxOutputBytes?: number;
  workspaceDir?: string;
  skillDir?: string;
}

/** Runs `script` with /bin/sh in the sandbox; the result also says where the run directory was on the host. */
export async function sh(sandbox: Sandbox, script: string, opts: ShellRun = {}): Promise<SandboxResult & { runDir: string; elapsedMs: number }> {
  const started = performance.now();
  const result = await sandbox.run(
    {
      command: () => ({ command: "/bin/sh", args: ["-c", script] }),
      workspaceDir: opts.workspaceDir,
      skillDir: opts.skillDir,
      timeoutMs: opts.timeoutMs ?? 10_000,
      maxOutputBytes: opts.maxOutputBytes ?? 65_536,
    },
    async (res, runDir) => ({ ...res, runDir }),
  );
  return { ...result, elapsedMs: performance.now() - started };
}
