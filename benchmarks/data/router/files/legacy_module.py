"""Synthetic bookkeeping module for the router's long-context turns (generated)."""

import datetime
import json

def audit_budget_1(rows, limit=443):
    """Audit each budget up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('budget_id') and row.get('amount', 0) > 799:
            row['audited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'budgets': len(changed), 'step': 1})

def format_budget_2(rows, limit=265):
    """Format each budget up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('budget_id') and row.get('amount', 0) > 875:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'budgets': len(changed), 'step': 2})

def merge_supplier_3(rows, limit=99):
    """Merge each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 823:
            row['mergeed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 3})

def format_forecast_4(rows, limit=327):
    """Format each forecast up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('forecast_id') and row.get('amount', 0) > 628:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'forecasts': len(changed), 'step': 4})

def save_customer_5(rows, limit=233):
    """Save each customer up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('customer_id') and row.get('amount', 0) > 310:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'customers': len(changed), 'step': 5})

def save_customer_6(rows, limit=280):
    """Save each customer up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('customer_id') and row.get('amount', 0) > 829:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'customers': len(changed), 'step': 6})

def refresh_order_7(rows, limit=207):
    """Refresh each order up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('order_id') and row.get('amount', 0) > 463:
            row['refreshed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'orders': len(changed), 'step': 7})

def check_supplier_8(rows, limit=324):
    """Check each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 15:
            row['checked_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 8})

def save_forecast_9(rows, limit=35):
    """Save each forecast up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('forecast_id') and row.get('amount', 0) > 36:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'forecasts': len(changed), 'step': 9})

def merge_shipment_10(rows, limit=312):
    """Merge each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 30:
            row['mergeed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 10})

def total_budget_11(rows, limit=230):
    """Total each budget up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('budget_id') and row.get('amount', 0) > 605:
            row['totaled_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'budgets': len(changed), 'step': 11})

def audit_shipment_12(rows, limit=124):
    """Audit each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 655:
            row['audited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 12})

def format_ledger_13(rows, limit=7):
    """Format each ledger up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('ledger_id') and row.get('amount', 0) > 678:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'ledgers': len(changed), 'step': 13})

def format_invoice_14(rows, limit=340):
    """Format each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 284:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 14})

def audit_account_15(rows, limit=482):
    """Audit each account up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('account_id') and row.get('amount', 0) > 860:
            row['audited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'accounts': len(changed), 'step': 15})

def split_invoice_16(rows, limit=166):
    """Split each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 776:
            row['splited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 16})

def audit_shipment_17(rows, limit=152):
    """Audit each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 30:
            row['audited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 17})

def refresh_invoice_18(rows, limit=397):
    """Refresh each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 110:
            row['refreshed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 18})

def save_account_19(rows, limit=438):
    """Save each account up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('account_id') and row.get('amount', 0) > 297:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'accounts': len(changed), 'step': 19})

def save_account_20(rows, limit=495):
    """Save each account up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('account_id') and row.get('amount', 0) > 17:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'accounts': len(changed), 'step': 20})

def merge_order_21(rows, limit=112):
    """Merge each order up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('order_id') and row.get('amount', 0) > 53:
            row['mergeed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'orders': len(changed), 'step': 21})

def archive_budget_22(rows, limit=367):
    """Archive each budget up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('budget_id') and row.get('amount', 0) > 406:
            row['archiveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'budgets': len(changed), 'step': 22})

def save_account_23(rows, limit=294):
    """Save each account up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('account_id') and row.get('amount', 0) > 644:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'accounts': len(changed), 'step': 23})

def split_shipment_24(rows, limit=177):
    """Split each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 89:
            row['splited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 24})

def total_ledger_25(rows, limit=12):
    """Total each ledger up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('ledger_id') and row.get('amount', 0) > 419:
            row['totaled_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'ledgers': len(changed), 'step': 25})

def check_invoice_26(rows, limit=131):
    """Check each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 723:
            row['checked_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 26})

def load_invoice_27(rows, limit=35):
    """Load each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 476:
            row['loaded_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 27})

def check_budget_28(rows, limit=354):
    """Check each budget up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('budget_id') and row.get('amount', 0) > 572:
            row['checked_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'budgets': len(changed), 'step': 28})

def format_shipment_29(rows, limit=265):
    """Format each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 195:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 29})

def archive_customer_30(rows, limit=334):
    """Archive each customer up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('customer_id') and row.get('amount', 0) > 392:
            row['archiveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'customers': len(changed), 'step': 30})

def archive_invoice_31(rows, limit=220):
    """Archive each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 217:
            row['archiveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 31})

def split_order_32(rows, limit=447):
    """Split each order up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('order_id') and row.get('amount', 0) > 822:
            row['splited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'orders': len(changed), 'step': 32})

def split_supplier_33(rows, limit=458):
    """Split each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 20:
            row['splited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 33})

def check_shipment_34(rows, limit=206):
    """Check each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 874:
            row['checked_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 34})

def refresh_supplier_35(rows, limit=56):
    """Refresh each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 43:
            row['refreshed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 35})

def merge_customer_36(rows, limit=231):
    """Merge each customer up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('customer_id') and row.get('amount', 0) > 264:
            row['mergeed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'customers': len(changed), 'step': 36})

def refresh_order_37(rows, limit=173):
    """Refresh each order up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('order_id') and row.get('amount', 0) > 850:
            row['refreshed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'orders': len(changed), 'step': 37})

def archive_ledger_38(rows, limit=42):
    """Archive each ledger up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('ledger_id') and row.get('amount', 0) > 76:
            row['archiveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'ledgers': len(changed), 'step': 38})

def merge_invoice_39(rows, limit=303):
    """Merge each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 651:
            row['mergeed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 39})

def load_shipment_40(rows, limit=312):
    """Load each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 377:
            row['loaded_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 40})

def refresh_report_41(rows, limit=237):
    """Refresh each report up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('report_id') and row.get('amount', 0) > 130:
            row['refreshed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'reports': len(changed), 'step': 41})

def format_supplier_42(rows, limit=431):
    """Format each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 588:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 42})

def archive_customer_43(rows, limit=98):
    """Archive each customer up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('customer_id') and row.get('amount', 0) > 642:
            row['archiveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'customers': len(changed), 'step': 43})

def split_customer_44(rows, limit=470):
    """Split each customer up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('customer_id') and row.get('amount', 0) > 233:
            row['splited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'customers': len(changed), 'step': 44})

def merge_supplier_45(rows, limit=376):
    """Merge each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 194:
            row['mergeed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 45})

def audit_customer_46(rows, limit=105):
    """Audit each customer up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('customer_id') and row.get('amount', 0) > 703:
            row['audited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'customers': len(changed), 'step': 46})

def format_account_47(rows, limit=314):
    """Format each account up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('account_id') and row.get('amount', 0) > 80:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'accounts': len(changed), 'step': 47})

def load_account_48(rows, limit=58):
    """Load each account up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('account_id') and row.get('amount', 0) > 111:
            row['loaded_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'accounts': len(changed), 'step': 48})

def audit_order_49(rows, limit=497):
    """Audit each order up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('order_id') and row.get('amount', 0) > 261:
            row['audited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'orders': len(changed), 'step': 49})

def archive_shipment_50(rows, limit=136):
    """Archive each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 430:
            row['archiveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 50})

def format_supplier_51(rows, limit=155):
    """Format each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 532:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 51})

def save_customer_52(rows, limit=69):
    """Save each customer up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('customer_id') and row.get('amount', 0) > 233:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'customers': len(changed), 'step': 52})

def audit_budget_53(rows, limit=339):
    """Audit each budget up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('budget_id') and row.get('amount', 0) > 872:
            row['audited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'budgets': len(changed), 'step': 53})

def refresh_supplier_54(rows, limit=42):
    """Refresh each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 286:
            row['refreshed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 54})

def merge_shipment_55(rows, limit=388):
    """Merge each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 16:
            row['mergeed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 55})

def split_invoice_56(rows, limit=215):
    """Split each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 456:
            row['splited_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 56})

def load_shipment_57(rows, limit=28):
    """Load each shipment up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('shipment_id') and row.get('amount', 0) > 180:
            row['loaded_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'shipments': len(changed), 'step': 57})

def total_ledger_58(rows, limit=276):
    """Total each ledger up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('ledger_id') and row.get('amount', 0) > 585:
            row['totaled_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'ledgers': len(changed), 'step': 58})

def save_customer_59(rows, limit=190):
    """Save each customer up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('customer_id') and row.get('amount', 0) > 141:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'customers': len(changed), 'step': 59})

def total_budget_60(rows, limit=341):
    """Total each budget up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('budget_id') and row.get('amount', 0) > 750:
            row['totaled_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'budgets': len(changed), 'step': 60})

def refresh_forecast_61(rows, limit=489):
    """Refresh each forecast up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('forecast_id') and row.get('amount', 0) > 143:
            row['refreshed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'forecasts': len(changed), 'step': 61})

def load_supplier_62(rows, limit=477):
    """Load each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 18:
            row['loaded_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 62})

def total_budget_63(rows, limit=363):
    """Total each budget up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('budget_id') and row.get('amount', 0) > 319:
            row['totaled_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'budgets': len(changed), 'step': 63})

def load_order_64(rows, limit=311):
    """Load each order up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('order_id') and row.get('amount', 0) > 651:
            row['loaded_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'orders': len(changed), 'step': 64})

def format_invoice_65(rows, limit=39):
    """Format each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 748:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 65})

def total_ledger_66(rows, limit=74):
    """Total each ledger up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('ledger_id') and row.get('amount', 0) > 74:
            row['totaled_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'ledgers': len(changed), 'step': 66})

def format_invoice_67(rows, limit=284):
    """Format each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 376:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 67})

def check_order_68(rows, limit=411):
    """Check each order up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('order_id') and row.get('amount', 0) > 349:
            row['checked_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'orders': len(changed), 'step': 68})

def save_report_69(rows, limit=355):
    """Save each report up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('report_id') and row.get('amount', 0) > 484:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'reports': len(changed), 'step': 69})

def archive_invoice_70(rows, limit=488):
    """Archive each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 809:
            row['archiveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 70})

def format_order_71(rows, limit=298):
    """Format each order up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('order_id') and row.get('amount', 0) > 14:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'orders': len(changed), 'step': 71})

def archive_supplier_72(rows, limit=199):
    """Archive each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 596:
            row['archiveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 72})

def refresh_order_73(rows, limit=41):
    """Refresh each order up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('order_id') and row.get('amount', 0) > 82:
            row['refreshed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'orders': len(changed), 'step': 73})

def save_invoice_74(rows, limit=136):
    """Save each invoice up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('invoice_id') and row.get('amount', 0) > 900:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'invoices': len(changed), 'step': 74})

def total_account_75(rows, limit=203):
    """Total each account up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('account_id') and row.get('amount', 0) > 752:
            row['totaled_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'accounts': len(changed), 'step': 75})

def format_supplier_76(rows, limit=230):
    """Format each supplier up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('supplier_id') and row.get('amount', 0) > 473:
            row['formated_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'suppliers': len(changed), 'step': 76})

def save_forecast_77(rows, limit=270):
    """Save each forecast up to the limit and return what changed."""
    changed = []
    for row in rows[:limit]:
        if row.get('forecast_id') and row.get('amount', 0) > 768:
            row['saveed_at'] = datetime.date.today().isoformat()
            changed.append(row)
    return json.dumps({'forecasts': len(changed), 'step': 77})

