# Multi-stage build: compile in a full image, run in a slim one as a non-root user.
FROM node:22-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 (the default store) is a native addon; the build stage has the tools to compile it if no prebuilt fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY console ./console
COPY public ./public
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
# python3: .py skill scripts; bubblewrap: the sandbox every script and run_shell command runs in; ffmpeg: voice;
# espeak-ng: the free offline speech provider (tts.provider espeak-ng); chromium: the browser tools.
RUN apt-get update && apt-get install -y --no-install-recommends python3 bubblewrap ffmpeg espeak-ng chromium && rm -rf /var/lib/apt/lists/*
# The virtual desktop of the desktop tools (docker build --build-arg DESKTOP=true): Xvfb, openbox, xdotool, wmctrl,
# and the accessibility tree (a session bus, at-spi2-core, pyatspi).
ARG DESKTOP=false
RUN if [ "$DESKTOP" = "true" ]; then apt-get update && apt-get install -y --no-install-recommends xvfb openbox xdotool wmctrl \
      dbus at-spi2-core python3-pyatspi \
      && rm -rf /var/lib/apt/lists/*; fi
ENV NODE_ENV=production \
    SWITCHBOARD_HOST=0.0.0.0 \
    SWITCHBOARD_PORT=8787 \
    SWITCHBOARD_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config ./config
COPY --from=build /app/public ./public
COPY skills ./skills
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.SWITCHBOARD_PORT||8787)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The heap flags bound the heap's growth as src/infra/heap-growth.ts does for a plain `node dist/cli.js start`: a
# heap limit under 2 GiB makes V8 grow the old generation less eagerly, and 4 MiB semi-spaces (Node's default: 16)
# keep the young generation small. bench/README.md ("The heap bound") measures the trade: it is what meets the RSS
# goal after 10,000 new users, and it costs CPU per message and p99 latency. Raise the limit if
# memory.cacheMaxMemories is raised far. Two malloc arenas instead of one per thread: about 8 MiB less RSS after
# 10,000 users in the telegram bench.
ENV MALLOC_ARENA_MAX=2
CMD ["node", "--max-old-space-size=1024", "--max-semi-space-size=4", "dist/cli.js", "start"]
