package server

import (
	"context"
	"fmt"

	"github.com/inlet-db/inlet/fe/mysqlwire"
)

// demoSQL makes the demo database a fresh user can query right away.
func demoSQL() []string {
	return []string{
		"CREATE DATABASE demo",
		`CREATE TABLE demo.customers (
		id INT NOT NULL COMMENT 'customer id',
		name VARCHAR(64) COMMENT 'display name',
		country VARCHAR(2),
		signup_date DATE
	) DUPLICATE KEY(id) COMMENT 'demo customers' DISTRIBUTED BY HASH(id) BUCKETS 1`,
		`CREATE TABLE demo.products (
		sku VARCHAR(16) NOT NULL,
		title VARCHAR(128),
		price DECIMAL(10,2)
	) DUPLICATE KEY(sku) DISTRIBUTED BY HASH(sku) BUCKETS 1`,
		`CREATE TABLE demo.orders (
		order_id BIGINT NOT NULL,
		customer_id INT,
		sku VARCHAR(16),
		qty INT,
		ordered_at DATETIME
	) DUPLICATE KEY(order_id) DISTRIBUTED BY HASH(order_id) BUCKETS 1`,
		`INSERT INTO demo.customers VALUES
		(1, 'Ada', 'GB', '2026-01-03'), (2, 'Grace', 'US', '2026-01-05'),
		(3, 'Linus', 'FI', '2026-02-11'), (4, 'Margaret', 'US', '2026-03-01'),
		(5, 'Edsger', 'NL', NULL)`,
		`INSERT INTO demo.products VALUES
		('A-1', 'Fluss mug', 12.50), ('B-2', 'Paimon poster', 30.00), ('C-3', 'Lake map', 7.25)`,
		`INSERT INTO demo.orders VALUES
		(1001, 1, 'A-1', 2, '2026-04-01 10:00:00'), (1002, 2, 'B-2', 1, '2026-04-01 11:30:00'),
		(1003, 1, 'C-3', 4, '2026-04-02 09:15:00'), (1004, 3, 'A-1', 1, '2026-04-02 18:45:00'),
		(1005, 4, 'B-2', 2, '2026-04-03 08:00:00'), (1006, 2, 'A-1', 3, '2026-04-03 12:00:00'),
		(1007, NULL, 'C-3', 1, '2026-04-04 16:20:00')`,
	}
}

// EnsureDemo creates the demo database unless it already exists.
func (s *Server) EnsureDemo(ctx context.Context) error {
	internal, err := s.cfg.Catalogs.Get(ctx, "internal")
	if err != nil {
		return err
	}
	dbs, err := internal.ListDatabases(ctx)
	if err != nil {
		return err
	}
	for _, d := range dbs {
		if d == "demo" {
			return nil
		}
	}
	return s.Exec(ctx, demoSQL()...)
}

// Exec runs statements in a fresh internal session, discarding results;
// the first error stops it.
func (s *Server) Exec(ctx context.Context, stmts ...string) error {
	sess, err := s.NewSession(mysqlwire.ConnInfo{User: "root"})
	if err != nil {
		return err
	}
	defer sess.Close()
	for _, q := range stmts {
		if err := sess.Query(ctx, q, discard{}); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

type discard struct{}

func (discard) Columns([]mysqlwire.Column) error { return nil }
func (discard) Row([][]byte) error               { return nil }
func (discard) OK(mysqlwire.OKResult) error      { return nil }
