#!/bin/sh
# Run once, by the postgres image, when the primary's data folder is first made: lets the standby connect for
# replication as the sandbox user (compose.yaml's `standby` service), with a password, from the compose network.
set -e
echo "host replication sandbox 172.28.0.0/16 scram-sha-256" >> "$PGDATA/pg_hba.conf"
