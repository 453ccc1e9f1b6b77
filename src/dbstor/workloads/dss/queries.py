"""The 22 TPC-H queries, written from the functional query definitions of the TPC-H
specification (clause 2.4), with their substitution parameters filled in per dialect.

Deviations, all permitted by the specification's rules for query variants or needed for an
engine: the "first N rows" of Q2, Q3, Q10, Q18 and Q21 are the dialect's first_rows(N) after
the ORDER BY (LIMIT N; OFFSET 0 ROWS FETCH NEXT N ROWS ONLY in T-SQL); Q1's interval has no
precision "(3)"; Q6's DISCOUNT +- 0.01 bounds are computed here (exact decimals), so that
SQLite's binary floating point cannot drop rows at the bounds; Q15's view is named
revenue<stream> and created, queried and dropped as three statements (execute.answer() runs them;
on SQLite it is a temporary view, which alone may read tables in attached files); on
SQLite and Oracle, Q13 names its derived table's count inside it (Oracle: no AS before a
table alias, dialect table_alias()).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from dbstor.workloads.dss.dialect import Dialect, in_list
from dbstor.workloads.dss.params import Params

QueryText = Callable[[Params, Dialect, int], str]


def q1(p: Params, d: Dialect, stream: int) -> str:
    return f"""select
    l_returnflag, l_linestatus,
    sum(l_quantity) as sum_qty,
    sum(l_extendedprice) as sum_base_price,
    sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
    sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
    avg(l_quantity) as avg_qty,
    avg(l_extendedprice) as avg_price,
    avg(l_discount) as avg_disc,
    count(*) as count_order
from lineitem
where l_shipdate <= {d.shift("1998-12-01", -p["delta"], "day")}
group by l_returnflag, l_linestatus
order by l_returnflag, l_linestatus"""


def q2(p: Params, d: Dialect, stream: int) -> str:
    return f"""select
    s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
from part, supplier, partsupp, nation, region
where p_partkey = ps_partkey
    and s_suppkey = ps_suppkey
    and p_size = {p["size"]}
    and {d.like("p_type", "%" + p["type"])}
    and s_nationkey = n_nationkey
    and n_regionkey = r_regionkey
    and r_name = '{p["region"]}'
    and ps_supplycost = (
        select min(ps_supplycost)
        from partsupp, supplier, nation, region
        where p_partkey = ps_partkey
            and s_suppkey = ps_suppkey
            and s_nationkey = n_nationkey
            and n_regionkey = r_regionkey
            and r_name = '{p["region"]}')
order by s_acctbal desc, n_name, s_name, p_partkey
{d.first_rows(100)}"""


def q3(p: Params, d: Dialect, stream: int) -> str:
    return f"""select
    l_orderkey,
    sum(l_extendedprice * (1 - l_discount)) as revenue,
    o_orderdate, o_shippriority
from customer, orders, lineitem
where c_mktsegment = '{p["segment"]}'
    and c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and o_orderdate < {d.date(p["date"])}
    and l_shipdate > {d.date(p["date"])}
group by l_orderkey, o_orderdate, o_shippriority
order by revenue desc, o_orderdate
{d.first_rows(10)}"""


def q4(p: Params, d: Dialect, stream: int) -> str:
    return f"""select o_orderpriority, count(*) as order_count
from orders
where o_orderdate >= {d.date(p["date"])}
    and o_orderdate < {d.shift(p["date"], 3, "month")}
    and exists (
        select * from lineitem
        where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)
group by o_orderpriority
order by o_orderpriority"""


def q5(p: Params, d: Dialect, stream: int) -> str:
    return f"""select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and l_suppkey = s_suppkey
    and c_nationkey = s_nationkey
    and s_nationkey = n_nationkey
    and n_regionkey = r_regionkey
    and r_name = '{p["region"]}'
    and o_orderdate >= {d.date(p["date"])}
    and o_orderdate < {d.shift(p["date"], 1, "year")}
group by n_name
order by revenue desc"""


def q6(p: Params, d: Dialect, stream: int) -> str:
    discount: Decimal = p["discount"]
    return f"""select sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= {d.date(p["date"])}
    and l_shipdate < {d.shift(p["date"], 1, "year")}
    and l_discount between {discount - Decimal("0.01")} and {discount + Decimal("0.01")}
    and l_quantity < {p["quantity"]}"""


def q7(p: Params, d: Dialect, stream: int) -> str:
    n1, n2 = p["nation1"], p["nation2"]
    return f"""select supp_nation, cust_nation, l_year, sum(volume) as revenue
from (
    select
        n1.n_name as supp_nation,
        n2.n_name as cust_nation,
        {d.year("l_shipdate")} as l_year,
        l_extendedprice * (1 - l_discount) as volume
    from supplier, lineitem, orders, customer, nation n1, nation n2
    where s_suppkey = l_suppkey
        and o_orderkey = l_orderkey
        and c_custkey = o_custkey
        and s_nationkey = n1.n_nationkey
        and c_nationkey = n2.n_nationkey
        and ((n1.n_name = '{n1}' and n2.n_name = '{n2}')
            or (n1.n_name = '{n2}' and n2.n_name = '{n1}'))
        and l_shipdate between {d.date("1995-01-01")} and {d.date("1996-12-31")}
    ) {d.table_alias("shipping")}
group by supp_nation, cust_nation, l_year
order by supp_nation, cust_nation, l_year"""


def q8(p: Params, d: Dialect, stream: int) -> str:
    return f"""select
    o_year,
    sum(case when nation = '{p["nation"]}' then volume else 0 end) / sum(volume) as mkt_share
from (
    select
        {d.year("o_orderdate")} as o_year,
        l_extendedprice * (1 - l_discount) as volume,
        n2.n_name as nation
    from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
    where p_partkey = l_partkey
        and s_suppkey = l_suppkey
        and l_orderkey = o_orderkey
        and o_custkey = c_custkey
        and c_nationkey = n1.n_nationkey
        and n1.n_regionkey = r_regionkey
        and r_name = '{p["region"]}'
        and s_nationkey = n2.n_nationkey
        and o_orderdate between {d.date("1995-01-01")} and {d.date("1996-12-31")}
        and p_type = '{p["type"]}'
    ) {d.table_alias("all_nations")}
group by o_year
order by o_year"""


def q9(p: Params, d: Dialect, stream: int) -> str:
    return f"""select nation, o_year, sum(amount) as sum_profit
from (
    select
        n_name as nation,
        {d.year("o_orderdate")} as o_year,
        l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
    from part, supplier, lineitem, partsupp, orders, nation
    where s_suppkey = l_suppkey
        and ps_suppkey = l_suppkey
        and ps_partkey = l_partkey
        and p_partkey = l_partkey
        and o_orderkey = l_orderkey
        and s_nationkey = n_nationkey
        and {d.like("p_name", "%" + p["color"] + "%")}
    ) {d.table_alias("profit")}
group by nation, o_year
order by nation, o_year desc"""


def q10(p: Params, d: Dialect, stream: int) -> str:
    return f"""select
    c_custkey, c_name,
    sum(l_extendedprice * (1 - l_discount)) as revenue,
    c_acctbal, n_name, c_address, c_phone, c_comment
from customer, orders, lineitem, nation
where c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and o_orderdate >= {d.date(p["date"])}
    and o_orderdate < {d.shift(p["date"], 3, "month")}
    and l_returnflag = 'R'
    and c_nationkey = n_nationkey
group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
order by revenue desc
{d.first_rows(20)}"""


def q11(p: Params, d: Dialect, stream: int) -> str:
    return f"""select ps_partkey, sum(ps_supplycost * ps_availqty) as value
from partsupp, supplier, nation
where ps_suppkey = s_suppkey
    and s_nationkey = n_nationkey
    and n_name = '{p["nation"]}'
group by ps_partkey
having sum(ps_supplycost * ps_availqty) > (
    select sum(ps_supplycost * ps_availqty) * {p["fraction"]}
    from partsupp, supplier, nation
    where ps_suppkey = s_suppkey
        and s_nationkey = n_nationkey
        and n_name = '{p["nation"]}')
order by value desc"""


def q12(p: Params, d: Dialect, stream: int) -> str:
    return f"""select
    l_shipmode,
    sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH'
        then 1 else 0 end) as high_line_count,
    sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH'
        then 1 else 0 end) as low_line_count
from orders, lineitem
where o_orderkey = l_orderkey
    and l_shipmode in ('{p["shipmode1"]}', '{p["shipmode2"]}')
    and l_commitdate < l_receiptdate
    and l_shipdate < l_commitdate
    and l_receiptdate >= {d.date(p["date"])}
    and l_receiptdate < {d.shift(p["date"], 1, "year")}
group by l_shipmode
order by l_shipmode"""


def q13(p: Params, d: Dialect, stream: int) -> str:
    pattern = f"%{p['word1']}%{p['word2']}%"
    return f"""select c_count, count(*) as custdist
from (
    select c_custkey, count(o_orderkey){d.counted_as("c_count")}
    from customer left outer join orders on
        c_custkey = o_custkey
        and {d.like("o_comment", pattern, negate=True)}
    group by c_custkey
    ) {d.derived("c_orders", ("c_custkey", "c_count"))}
group by c_count
order by custdist desc, c_count desc"""


def q14(p: Params, d: Dialect, stream: int) -> str:
    return f"""select
    100.00 * sum(case when {d.like("p_type", "PROMO%")}
        then l_extendedprice * (1 - l_discount) else 0 end)
    / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem, part
where l_partkey = p_partkey
    and l_shipdate >= {d.date(p["date"])}
    and l_shipdate < {d.shift(p["date"], 1, "month")}"""


def q15(p: Params, d: Dialect, stream: int) -> str:
    view = f"revenue{stream}"
    return f"""{d.create_view(view)} (supplier_no, total_revenue) as
    select l_suppkey, sum(l_extendedprice * (1 - l_discount))
    from lineitem
    where l_shipdate >= {d.date(p["date"])}
        and l_shipdate < {d.shift(p["date"], 3, "month")}
    group by l_suppkey;
select s_suppkey, s_name, s_address, s_phone, total_revenue
from supplier, {view}
where s_suppkey = supplier_no
    and total_revenue = (select max(total_revenue) from {view})
order by s_suppkey;
drop view {view}"""


def q16(p: Params, d: Dialect, stream: int) -> str:
    sizes = ", ".join(str(s) for s in p["sizes"])
    return f"""select p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt
from partsupp, part
where p_partkey = ps_partkey
    and p_brand <> '{p["brand"]}'
    and {d.like("p_type", p["type"] + "%", negate=True)}
    and p_size in ({sizes})
    and ps_suppkey not in (
        select s_suppkey from supplier
        where {d.like("s_comment", "%Customer%Complaints%")})
group by p_brand, p_type, p_size
order by supplier_cnt desc, p_brand, p_type, p_size"""


def q17(p: Params, d: Dialect, stream: int) -> str:
    return f"""select sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, part
where p_partkey = l_partkey
    and p_brand = '{p["brand"]}'
    and p_container = '{p["container"]}'
    and l_quantity < (
        select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)"""


def q18(p: Params, d: Dialect, stream: int) -> str:
    return f"""select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
from customer, orders, lineitem
where o_orderkey in (
        select l_orderkey from lineitem
        group by l_orderkey having sum(l_quantity) > {p["quantity"]})
    and c_custkey = o_custkey
    and o_orderkey = l_orderkey
group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
order by o_totalprice desc, o_orderdate
{d.first_rows(100)}"""


def q19(p: Params, d: Dialect, stream: int) -> str:
    branches = []
    for k, containers, size in (
        (1, ("SM CASE", "SM BOX", "SM PACK", "SM PKG"), 5),
        (2, ("MED BAG", "MED BOX", "MED PKG", "MED PACK"), 10),
        (3, ("LG CASE", "LG BOX", "LG PACK", "LG PKG"), 15),
    ):
        quantity = p[f"quantity{k}"]
        branches.append(
            f"""(
        p_partkey = l_partkey
        and p_brand = '{p[f"brand{k}"]}'
        and p_container in ({in_list(containers)})
        and l_quantity >= {quantity} and l_quantity <= {quantity} + 10
        and p_size between 1 and {size}
        and l_shipmode in ('AIR', 'AIR REG')
        and l_shipinstruct = 'DELIVER IN PERSON')"""
        )
    return f"""select sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where {" or ".join(branches)}"""


def q20(p: Params, d: Dialect, stream: int) -> str:
    return f"""select s_name, s_address
from supplier, nation
where s_suppkey in (
        select ps_suppkey from partsupp
        where ps_partkey in (
                select p_partkey from part where {d.like("p_name", p["color"] + "%")})
            and ps_availqty > (
                select 0.5 * sum(l_quantity) from lineitem
                where l_partkey = ps_partkey
                    and l_suppkey = ps_suppkey
                    and l_shipdate >= {d.date(p["date"])}
                    and l_shipdate < {d.shift(p["date"], 1, "year")}))
    and s_nationkey = n_nationkey
    and n_name = '{p["nation"]}'
order by s_name"""


def q21(p: Params, d: Dialect, stream: int) -> str:
    return f"""select s_name, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey
    and o_orderkey = l1.l_orderkey
    and o_orderstatus = 'F'
    and l1.l_receiptdate > l1.l_commitdate
    and exists (
        select * from lineitem l2
        where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey)
    and not exists (
        select * from lineitem l3
        where l3.l_orderkey = l1.l_orderkey
            and l3.l_suppkey <> l1.l_suppkey
            and l3.l_receiptdate > l3.l_commitdate)
    and s_nationkey = n_nationkey
    and n_name = '{p["nation"]}'
group by s_name
order by numwait desc, s_name
{d.first_rows(100)}"""


def q22(p: Params, d: Dialect, stream: int) -> str:
    code = d.substring("c_phone", 1, 2)
    codes = in_list(p["codes"])
    return f"""select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal
from (
    select {code} as cntrycode, c_acctbal
    from customer
    where {code} in ({codes})
        and c_acctbal > (
            select avg(c_acctbal) from customer
            where c_acctbal > 0.00 and {code} in ({codes}))
        and not exists (select * from orders where o_custkey = c_custkey)
    ) {d.table_alias("custsale")}
group by cntrycode
order by cntrycode"""


_ALL = (q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18)
TEXTS: dict[int, QueryText] = dict(enumerate((*_ALL, q19, q20, q21, q22), start=1))
