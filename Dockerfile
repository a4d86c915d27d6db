# syntax=docker/dockerfile:1
# Showsuite as shipped: `docker build -t showsuite .` from the repository root; see docs/deploy.md.

# One Node.js for every stage: 22 LTS, an exact release (bump it deliberately, with the test suite run on it).
ARG NODE_IMAGE=node:22.13.1-bookworm-slim

# 1. Build: every dependency (esbuild, the page's and the console's bundler), then `npm run build`, which writes the
#    server to dist/ (with the migrations and the embedded database's template) and the page and console to public-build/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# 2. Production dependencies only: what dist/ loads at run time (native addons such as argon2 and sharp, PGlite's
#    WebAssembly, the docs page's files) and nothing the build needed.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. The image: plain node on the built server, as the unprivileged `node` user of the base image.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/public-build ./public-build
# The demo presentation's images and the guides /docs links to.
COPY --from=build /app/web/static ./web/static
COPY --from=build /app/docs ./docs
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Ready = the database answers and the job queue is started (503 otherwise).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The node flags of `npm start`; SIGTERM goes straight to node, which drains and exits 0.
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=25", "dist/main.js"]
