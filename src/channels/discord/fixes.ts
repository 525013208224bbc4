/** What to do about Discord's usual set-up problems; plain text, so the module can name them without loading discord.js. */

export const INTENTS_FIX =
  "open the Discord Developer Portal > Applications > your bot > Bot > Privileged Gateway Intents, turn on MESSAGE CONTENT INTENT, save, and restart Switchboard";

export const TOKEN_FIX = "reset the token under Developer Portal > Applications > your bot > Bot > Reset Token, and set DISCORD_BOT_TOKEN";

export const discordFix = `check DISCORD_BOT_TOKEN (${TOKEN_FIX}) and DISCORD_API_URL`;
