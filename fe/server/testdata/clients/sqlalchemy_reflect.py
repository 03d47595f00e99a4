"""SQLAlchemy + PyMySQL + pandas side of fe/server TestSQLAlchemy.

Usage: sqlalchemy_reflect.py PORT. Reflects the tables of two databases the
way ORMs and notebooks do (database `cl` of the internal catalog, and
`fl.shop`, Doris's catalog.db addressing, of a Fluss catalog), reads through
pandas, and prints one JSON document. Every warning is an error: SQLAlchemy
warns on each line of SHOW CREATE TABLE it cannot parse, and a reflection that
warns has silently lost something.
"""
import json
import os
import sys
import warnings

warnings.simplefilter("error")
# pandas 1.5 calls SQLAlchemy 1.4 in ways 2.0 removed, and SQLAlchemy says so
# once per process: a note about the two libraries, not about the server.
os.environ["SQLALCHEMY_SILENCE_UBER_WARNING"] = "1"

import pandas as pd  # noqa: E402
import pymysql  # noqa: E402
import sqlalchemy as sa  # noqa: E402

port = int(sys.argv[1])
out = {}


def engine(db):
    return sa.create_engine("mysql+pymysql://root@127.0.0.1:%d/%s" % (port, db))


def reflect(eng, key):
    insp = sa.inspect(eng)
    tables = insp.get_table_names()
    out[key + ".tables"] = tables
    for t in tables:
        out[key + "." + t + ".columns"] = [
            [c["name"], c["type"].compile(dialect=eng.dialect), c["nullable"]]
            for c in insp.get_columns(t)
        ]
        out[key + "." + t + ".pk"] = insp.get_pk_constraint(t)["constrained_columns"]
        out[key + "." + t + ".indexes"] = [
            [i["name"], i["column_names"], bool(i["unique"])] for i in insp.get_indexes(t)
        ]
        # What schema-diff tools (alembic autogenerate) ask besides.
        out[key + "." + t + ".other"] = [
            insp.get_foreign_keys(t),
            insp.get_unique_constraints(t),
            insp.get_check_constraints(t),
            insp.get_table_comment(t)["text"],
        ]
    out[key + ".views"] = views = insp.get_view_names()
    for v in views:
        out[key + "." + v + ".columns"] = [
            [c["name"], c["type"].compile(dialect=eng.dialect), c["nullable"]] for c in insp.get_columns(v)
        ]
    # The databases of the connection's catalog: the one connected to is
    # among them.
    out[key + ".schemas"] = eng.url.database.split(".")[-1] in insp.get_schema_names()


def frame(df):
    """A DataFrame as [dtypes, rows], cells as text ("None" for NULL/NaT/NaN)."""
    rows = []
    for r in df.itertuples(index=False):
        rows.append([None if pd.isna(v) else str(v) for v in r])
    return [[str(t) for t in df.dtypes], rows]


cl, fl = engine("cl"), engine("fl.shop")
reflect(cl, "cl")
reflect(fl, "fl")

# Table reflection into MetaData, as ORMs do (autoload).
md = sa.MetaData()
items = sa.Table("items", md, autoload_with=fl)
out["fl.items.autoload"] = [[c.name, c.primary_key] for c in items.columns]

# pandas over the union read of the Fluss primary-key table, with and
# without a bound parameter.
out["fl.read_sql"] = frame(pd.read_sql("SELECT * FROM items ORDER BY id", fl))
out["fl.read_sql_params"] = frame(
    pd.read_sql(sa.text("SELECT id, name, price FROM items WHERE price > :p ORDER BY id"), fl, params={"p": 10})
)
out["cl.read_sql"] = frame(pd.read_sql("SELECT * FROM types ORDER BY id", cl))
out["cl.read_sql_table"] = frame(pd.read_sql_table("people", cl))

# PyMySQL on its own, with its client-side parameters.
conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="cl")
with conn.cursor() as cur:
    cur.execute("SELECT id, bi, dec1, dt, ts6, s, b FROM types WHERE id = %s OR s = %s ORDER BY id", (1, ""))
    out["pymysql"] = [[type(v).__name__ + ":" + str(v) for v in r] for r in cur.fetchall()]
conn.close()

json.dump(out, sys.stdout, sort_keys=True)
