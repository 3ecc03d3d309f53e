#!/usr/bin/env bash
# Generates the two production secrets, once, from the OS CSPRNG. Store the output in your secret
# manager (not in the repository, not in the env file) and pass both to every Rampart process.
# Losing RAMPART_MASTER_KEY makes every encrypted value in the database unreadable.
set -euo pipefail
echo "RAMPART_MASTER_KEY=$(openssl rand -hex 32)"
echo "RAMPART_OPERATOR_TOKEN=$(openssl rand -base64 48 | tr -d '\n=' | tr '+/' '-_')"
