# CI only: the stand-in for the official node image (Docker Hub is out of reach from CI), made by
# deploy/ci/docker-up.sh from debootstrap's minbase bookworm and this machine's node, npm and CA bundle, laid out as
# the official image is (/usr/local, a `node` user with uid 1000), so that the Dockerfile builds unchanged with
# NODE_IMAGE set to it.
ARG BASE
FROM ${BASE}
COPY usr/ /usr/
COPY etc/ /etc/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
