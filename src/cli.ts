#!/usr/bin/env node
/**
 * The `switchboard` command. Its heap settings are made before the rest of its code is loaded: loading alone grew
 * V8's young generation to its largest (infra/heap-growth.ts); `start` lets it grow to its bound once the gateway runs.
 */
import { boundHeapGrowth } from "./infra/heap-growth.js";

boundHeapGrowth();
await import("./cli-commands.js");
