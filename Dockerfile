# The controller image: multi-stage, small Node 22 base, non-root, read-only root filesystem friendly
# (nothing is written at runtime). Build: docker build -t ghcr.io/cdk8s-kueue-ray/controller:0.1.0 .
# (No Docker engine where this was written: test/controller-entrypoint.test.ts runs the exact
# entrypoint below against the compiled lib/ instead.)
FROM node:22.12.0-alpine3.21 AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY imports ./imports
COPY examples ./examples
RUN npx tsc -p tsconfig.json && npm prune --omit=dev --ignore-scripts

FROM node:22.12.0-alpine3.21
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/lib ./lib
COPY package.json ./
USER 65532:65532
EXPOSE 9443
ENTRYPOINT ["node", "lib/src/cli/main.js"]
CMD ["controller"]
