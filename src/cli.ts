#!/usr/bin/env node
/**
 * The `switchboard` command. Its heap settings are made before the rest of its code is loaded: loading alone grows
 * V8's young generation to its largest (infra/heap-growth.ts).
 */
import { boundHeapGrowth } from "./infra/heap-growth.js";

boundHeapGrowth();
await import("./cli-commands.js");
