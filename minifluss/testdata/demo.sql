-- A small demo cluster: one log table, one partitioned PK table.
CREATE DATABASE IF NOT EXISTS shop;

CREATE TABLE shop.events (
  id BIGINT NOT NULL COMMENT 'event id',
  kind STRING,
  amount DECIMAL(10, 2),
  at TIMESTAMP(3),
  tags ARRAY<STRING>
) COMMENT 'append-only events'
  WITH ('bucket.num' = '2', 'table.log.arrow.compression.type' = 'ZSTD', 'owner' = 'demo');

INSERT INTO shop.events BUCKET 0 VALUES
  (1, 'view', 0, '2024-05-01 10:00:00', ARRAY['a', 'b']),
  (2, 'buy', 12.50, '2024-05-01 10:01:00.250', NULL);
INSERT INTO shop.events BUCKET 1 VALUES (3, 'view', NULL, NULL, ARRAY[]);

CREATE TABLE shop.orders (
  id INT NOT NULL,
  dt STRING NOT NULL,
  total DOUBLE,
  PRIMARY KEY (id, dt) NOT ENFORCED
) PARTITIONED BY (dt)
  WITH ('bucket.num' = '1', 'table.datalake.enabled' = 'false');

INSERT INTO shop.orders VALUES (1, '2024-05-01', 10.5), (2, '2024-05-01', 3), (1, '2024-05-02', 7);
INSERT INTO shop.orders VALUES (1, '2024-05-01', 11.0);
DELETE FROM shop.orders WHERE id = 2 AND dt = '2024-05-01';
SNAPSHOT KV shop.orders PARTITION '2024-05-01';

-- retention controls
ARCHIVE LOG shop.events BUCKET 0 UPTO 2;
MOVE LEADER shop.events BUCKET 1 TO 0;
SET LAKE SNAPSHOT shop.orders ID 7 OFFSETS (PARTITION '2024-05-01' BUCKET 0 = 2);
