/** The skill engine's plug: the skills handler, the catalog and equipped skills in the prompt, the console and CLI. */
import { setUpSkills } from "../handlers/skills.js";
import { registerSkillsCommands } from "../skills/cli.js";
import { skillsConfigSchema } from "../skills/config.js";
import { skillRoutes } from "../skills/console-routes.js";
import { BUNDLED_SKILLS_DIR, userSkillsDir } from "../skills/index.js";
import { defineFeature } from "./module.js";

export const skillsFeature = defineFeature({
  name: "skills",
  configSchema: skillsConfigSchema,
  create: async ({ settings, core, log, registry, store, sandbox }) => {
    // Registers its own handler: the `skill_<name>` tools come and go as skills are installed and removed.
    const skills = await setUpSkills({
      config: settings,
      bundledDir: BUNDLED_SKILLS_DIR,
      userDir: userSkillsDir(core.dataDir),
      log,
      registry,
      store,
      sandbox,
    });
    return {
      turn: { skillsCatalog: (only) => skills.catalog(only), equippedSkills: (sessionKey) => skills.equippedSection(sessionKey) },
      consoleRoutes: { skills: skillRoutes(skills) },
      stop: () => skills.close(),
    };
  },
  cli: (program, ctx) =>
    registerSkillsCommands(program, {
      setup: () => {
        const { settings, core, log } = ctx.setup();
        return { config: settings, bundledDir: BUNDLED_SKILLS_DIR, userDir: userSkillsDir(core.dataDir), log };
      },
    }),
});
