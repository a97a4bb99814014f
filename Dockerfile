# Samsa: a Kafka-protocol broker. Build: docker build -t samsa .
# Run:   docker run -p 9092:9092 -p 9644:9644 -v samsa-data:/var/lib/samsa samsa
#        (9644: /metrics for Prometheus, /health/live, /health/ready, and the web console at /)
# Settings use Kafka's names, through KAFKA_* variables as in the apache/kafka image
# (KAFKA_NUM_PARTITIONS=3 -> num.partitions=3) or `--override key=value` arguments.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# python3/make/g++ build the native CRC-32C (SSE4.2) and zstd addons.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY tools/bundle.mjs ./tools/bundle.mjs
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    KAFKA_LOG_DIRS=/var/lib/samsa \
    KAFKA_LISTENERS=PLAINTEXT://:9092 \
    KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://localhost:9092 \
    KAFKA_SAMSA_HTTP_LISTENERS=http://0.0.0.0:9644
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /var/lib/samsa && chown -R node:node /var/lib/samsa
USER node
VOLUME ["/var/lib/samsa"]
EXPOSE 9092 9644
# Healthy once every log is loaded and the broker is registered (/health/ready answers 200).
# The start period covers log recovery after an unclean stop.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:9644/health/ready').then((r)=>process.exit(r.status===200?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/samsa.js", "start"]
