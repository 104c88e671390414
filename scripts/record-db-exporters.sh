#!/usr/bin/env bash
# Records what Debian's prometheus-postgres-exporter (0.11) and prometheus-mysqld-exporter
# (0.14) expose while a throwaway PostgreSQL and MariaDB server get a ramp of client
# connections: the test fixtures internal/analysis/testdata/{postgres,mysqld}-exporter.prom.
#
# Each scrape is the exporter's exposition text, filtered to the families the catalog
# reads, after a line "# scrape <unix ms> truth <n>" where n is what the server itself
# said at that moment (pg_stat_activity's backends with a database; Threads_connected).
# Run as root on a machine with `apt-get install -y postgresql mariadb-server
# prometheus-postgres-exporter prometheus-mysqld-exporter`; it starts and stops
# everything itself under a temporary directory, on loopback ports 55432, 53306, 59187
# and 59104.
set -euo pipefail

out=${1:-internal/analysis/testdata}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
dir=$(mktemp -d /tmp/record-db.XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	su postgres -c "$pgbin/pg_ctl -D $dir/pg/data -m immediate stop" >/dev/null 2>&1 || true
	[ -f "$dir/my/pid" ] && kill "$(cat "$dir/my/pid")" 2>/dev/null || true
	sleep 1
	rm -rf "$dir"
}
trap cleanup EXIT

mkdir -p "$dir/pg" "$dir/my"
chown postgres "$dir/pg"
chown mysql "$dir/my"
su postgres -c "$pgbin/initdb -D $dir/pg/data -U postgres --auth=trust" >/dev/null
su postgres -c "$pgbin/pg_ctl -D $dir/pg/data -l $dir/pg/log -w start -o '-p 55432 -k $dir/pg -c listen_addresses=127.0.0.1 -c max_connections=50'" >/dev/null
psql -qh 127.0.0.1 -p 55432 -U postgres -c 'create database shoong'
mariadb-install-db --datadir="$dir/my/data" --user=mysql --auth-root-authentication-method=normal >/dev/null
mariadbd --datadir="$dir/my/data" --user=mysql --port=53306 --bind-address=127.0.0.1 \
	--socket="$dir/my/sock" --pid-file="$dir/my/pid" --max-connections=60 --skip-log-bin >"$dir/my/log" 2>&1 &
for _ in $(seq 50); do mariadb -h127.0.0.1 -P53306 -uroot -e 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
mariadb -h127.0.0.1 -P53306 -uroot -e "create database shoong; create user 'exporter'@'127.0.0.1' identified by 'x' with max_user_connections 3;
  grant process, replication client, select on *.* to 'exporter'@'127.0.0.1'"
printf '[client]\nuser=exporter\npassword=x\nhost=127.0.0.1\nport=53306\n' >"$dir/my.cnf"

DATA_SOURCE_NAME="postgresql://postgres@127.0.0.1:55432/postgres?sslmode=disable" \
	prometheus-postgres-exporter --web.listen-address=127.0.0.1:59187 >"$dir/pgexp.log" 2>&1 &
pids+=($!)
prometheus-mysqld-exporter --config.my-cnf="$dir/my.cnf" --web.listen-address=127.0.0.1:59104 >"$dir/myexp.log" 2>&1 &
pids+=($!)
sleep 2

header() {
	cat <<EOF
# Recorded by scripts/record-db-exporters.sh on $(date -u +%Y-%m-%d) from Debian's
# $1 against a throwaway $2 (max_connections $3) on loopback,
# while 2, 6, 12, 20 and 8 clients held connections to database shoong for 6 s each
# (half running a query, half idle). Every scrape is the exporter's own text, filtered to
# the families Tidemark reads; "# scrape <unix ms> truth <n>" precedes it, n being what
# the server itself said at that moment ($4).
EOF
}
pgver=$(prometheus-postgres-exporter --version 2>&1 | head -1)
myver=$(prometheus-mysqld-exporter --version 2>&1 | head -1)
pgsrv=$(psql -Atqh 127.0.0.1 -p 55432 -U postgres -c 'show server_version')
mysrv=$(mariadb -N -h127.0.0.1 -P53306 -uroot -e 'select version()')
header "$pgver" "PostgreSQL $pgsrv" 50 "count(*) of pg_stat_activity where datname is not null" >"$out/postgres-exporter.prom"
header "$myver" "MariaDB $mysrv" 60 "SHOW GLOBAL STATUS Threads_connected" >"$out/mysqld-exporter.prom"

scrape() {
	local now pg my
	now=$(date +%s%3N)
	pg=$(psql -Atqh 127.0.0.1 -p 55432 -U postgres -c 'select count(*) from pg_stat_activity where datname is not null')
	my=$(mariadb -N -h127.0.0.1 -P53306 -uroot -e "show global status like 'Threads_connected'" | cut -f2)
	# The truth queries hold a connection of their own while they run; they are counted.
	{
		echo "# scrape $now truth $pg"
		curl -s 127.0.0.1:59187/metrics | grep -E '^(# (HELP|TYPE) )?(pg_stat_activity_count|pg_settings_max_connections|pg_up)[ {]'
	} >>"$out/postgres-exporter.prom"
	{
		echo "# scrape $now truth $my"
		curl -s 127.0.0.1:59104/metrics | grep -E '^(# (HELP|TYPE) )?(mysql_global_status_threads_(connected|running)|mysql_global_status_max_used_connections|mysql_global_variables_max_connections|mysql_up)[ {]'
	} >>"$out/mysqld-exporter.prom"
}

scrape
for n in 2 6 12 20 8; do
	clients=()
	for i in $(seq "$n"); do
		if ((i % 2)); then
			psql -qh 127.0.0.1 -p 55432 -U postgres shoong -c 'select pg_sleep(6)' >/dev/null &
			clients+=($!)
			mariadb -h127.0.0.1 -P53306 -uroot shoong -e 'select sleep(6)' >/dev/null &
			clients+=($!)
		else
			psql -qh 127.0.0.1 -p 55432 -U postgres shoong -c 'select 1' -c '\! sleep 6' >/dev/null &
			clients+=($!)
			mariadb -h127.0.0.1 -P53306 -uroot shoong -e 'select 1; \! sleep 6' >/dev/null &
			clients+=($!)
		fi
	done
	sleep 2
	scrape
	sleep 2
	scrape
	wait "${clients[@]}"
done
sleep 1
scrape
