"""Generate the invoice-extraction example suite (schema, gold and two extraction runs).

    python examples/generate.py                 # rewrite the files next to this script
    python examples/generate.py --out DIR       # write them somewhere else
    python examples/generate.py --stats         # also print what was injected

Deterministic: every random choice comes from a ``random.Random`` seeded from
``--seed`` and the name of the stream ("gold", "model-a", ...), never from the global
RNG, so the same seed rewrites the same bytes. The gold data is drawn first and from
its own stream, so retuning an extraction run never changes the gold file.

Standard library only, so it runs without the project installed.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import random
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

DEFAULT_SEED = 20261123
N_INVOICES = 240

SCHEMA_FILE = "invoices.eval.json"
GOLD_FILE = "invoices.gold.jsonl"
RUN_FILES = {
    "model-a": "invoices.model-a.extracted.jsonl",
    "model-b": "invoices.model-b.extracted.jsonl",
}

# --------------------------------------------------------------------------------------
# Vocabularies
# --------------------------------------------------------------------------------------

# country -> (currency, standard tax rate, VAT-id style, dial code, money-format style)
COUNTRIES: dict[str, tuple[str, float, str, str, str]] = {
    "DE": ("EUR", 0.19, "DE", "49", "dot"),
    "FR": ("EUR", 0.20, "FR", "33", "space"),
    "ES": ("EUR", 0.21, "ES", "34", "dot"),
    "PT": ("EUR", 0.23, "PT", "351", "dot"),
    "FI": ("EUR", 0.255, "FI", "358", "space"),
    "SE": ("SEK", 0.25, "SE", "46", "space"),
    "CH": ("CHF", 0.081, "CH", "41", "apostrophe"),
    "GB": ("GBP", 0.20, "GB", "44", "comma"),
    "US": ("USD", 0.0, "US", "1", "comma"),
}

# name, street, city, postal code, country, product categories, US sales tax (else None)
VENDORS: list[tuple[str, str, str, str, str, tuple[str, ...], float | None]] = [
    ("Müller & Söhne GmbH", "Industriestraße 12", "München", "80331", "DE", ("hardware",), None),
    ("Schäfer Bürobedarf KG", "Königsallee 48", "Düsseldorf", "40212", "DE", ("office",), None),
    ("Brötchen & Böhm Großküchenbedarf GmbH", "Marktstraße 10", "Köln", "50968", "DE",
     ("food",), None),
    ("Weiß IT-Systemhaus GmbH", "Löwenstraße 7", "Dresden", "01067", "DE", ("it", "office"), None),
    ("Quincaillerie Lefèvre & Fils SARL", "27 rue des Écoles", "Lyon", "69002", "FR",
     ("hardware",), None),
    ("Bureautique Étoile SAS", "5 avenue de l'Opéra", "Paris", "75001", "FR", ("office", "it"),
     None),
    ("Crèmerie Côté Cuisine SARL", "3 allée Duguay-Trouin", "Nantes", "44000", "FR", ("food",),
     None),
    ("Ferretería Núñez S.L.", "Calle de Alcalá 115", "Madrid", "28009", "ES", ("hardware",), None),
    ("Informática Peñalver S.A.", "Avinguda Diagonal 640", "Barcelona", "08017", "ES", ("it",),
     None),
    ("Distribuciones Hostelería Ibáñez S.L.", "Calle de Colón 22", "València", "46004", "ES",
     ("food",), None),
    ("Ferragens São João Lda.", "Rua de Santa Catarina 210", "Porto", "4000-447", "PT",
     ("hardware",), None),
    ("Papelaria Conceição & Irmãos Lda.", "Avenida da Liberdade 185", "Lisboa", "1250-142", "PT",
     ("office",), None),
    ("Hämeen Rautakauppa Oy", "Hämeenkatu 21", "Tampere", "33200", "FI", ("hardware",), None),
    ("Pohjolan Tietotekniikka Oy", "Mannerheimintie 12", "Helsinki", "00100", "FI", ("it",), None),
    ("Åkerlund Järnhandel AB", "Drottninggatan 55", "Stockholm", "111 21", "SE", ("hardware",),
     None),
    ("Göteborgs Kontorsmaterial AB", "Östra Hamngatan 18", "Göteborg", "411 09", "SE",
     ("office",), None),
    ("Nordström Storköksservice AB", "Södra Förstadsgatan 40", "Malmö", "211 43", "SE", ("food",),
     None),
    ("Zürcher Eisenwaren AG", "Bahnhofstrasse 45", "Zürich", "8001", "CH", ("hardware",), None),
    ("Bürocenter Genève SA", "Rue du Rhône 62", "Genève", "1204", "CH", ("office", "it"), None),
    ("Hartley & Finch Ltd", "14 Deansgate", "Manchester", "M3 2BW", "GB", ("hardware",), None),
    ("Blackwood Office Supplies Ltd", "221 Kingsland Road", "London", "E2 8AN", "GB", ("office",),
     None),
    ("Thistle Catering Supplies Ltd", "9 Rose Street", "Edinburgh", "EH2 2PR", "GB", ("food",),
     None),
    ("Acme Industrial Supply Co.", "1200 W Fulton Market", "Chicago", "60607", "US",
     ("hardware",), 0.1025),
    ("Pinecrest Office Products Inc.", "450 Lexington Ave", "New York", "10017", "US",
     ("office",), 0.08875),
    ("Summit Data Systems LLC", "1120 SW Morrison St", "Portland", "97205", "US", ("it",), 0.0),
    ("Lone Star Restaurant Supply", "3300 Main St", "Dallas", "75226", "US", ("food",), 0.0825),
]

CUSTOMERS: list[tuple[str, str]] = [
    ("Northwind Logistics Ltd", "ap@northwind-logistics.co.uk"),
    ("Bäckerei Schröder GmbH", "buchhaltung@baeckerei-schroeder.de"),
    ("Hôtel Beaurivage", "comptabilite@hotel-beaurivage.fr"),
    ("Café Olé Barcelona S.L.", "facturas@cafeole.es"),
    ("Stadtwerke Lüneburg", "rechnungseingang@stadtwerke-lueneburg.de"),
    ("Kungsholmens Tandvård AB", "faktura@kungsholmenstandvard.se"),
    ("Restaurante O Mercado", "contabilidade@omercado.pt"),
    ("Helix Biotech Inc.", "accounts.payable@helixbio.com"),
    ("Greenfield Primary School", "finance@greenfield.sch.uk"),
    ("Atelier Dupont Architectes", "factures@atelier-dupont.fr"),
    ("Riverside Dental Group", "billing@riversidedental.com"),
    ("Åre Fjällhotell AB", "ekonomi@arefjallhotell.se"),
    ("Clínica Dental Sonrisa", "administracion@clinicasonrisa.es"),
    ("Lindqvist Bygg AB", "fakturor@lindqvistbygg.se"),
    ("Brauhaus Zum Löwen", "info@brauhaus-loewen.de"),
    ("Kahvila Sävy Oy", "laskut@kahvilasavy.fi"),
    ("Maple Street Co-working", "invoices@maplestreet.work"),
    ("Grand Café Zürich AG", "kreditoren@grandcafe-zuerich.ch"),
]

# sku, description, unit price in EUR, typical quantities
PRODUCTS: dict[str, list[tuple[str, str, float, tuple[float, ...]]]] = {
    "hardware": [
        ("A-1042", "Stainless steel hex bolts M8 x 40", 0.35, (100, 200, 250, 500)),
        ("A-1043", "Hex nuts M8, zinc plated", 0.08, (200, 500, 1000)),
        ("A-1107", "Flat washers M10, DIN 125", 0.05, (250, 500, 1000)),
        ("A-1220", "Wood screws 4.5 x 50, Torx, box of 200", 8.90, (1, 2, 5, 10)),
        ("A-1315", "Cordless drill 18 V with 2 batteries", 189.00, (1, 2, 3)),
        ("A-1402", "HSS drill bit set, 19 pcs", 24.50, (1, 2, 4)),
        ("A-1510", "Safety gloves, nitrile coated, size 9", 3.20, (10, 20, 50)),
        ("A-1622", "Cable ties 300 x 4.8 mm, black, pack of 100", 6.40, (2, 5, 10)),
        ("A-1730", "Angle grinder discs 125 mm, pack of 10", 14.75, (1, 3, 5)),
        ("A-1801", "Aluminium ladder, 3 x 9 rungs", 249.00, (1, 2)),
        ("A-1915", "Silicone sealant, transparent, 310 ml", 5.60, (6, 12, 24)),
        ("A-2004", "Measuring tape 5 m, magnetic hook", 9.95, (1, 5, 10)),
        ("A-2110", "Padlock 40 mm, keyed alike", 12.30, (2, 4, 10)),
        ("A-2208", "Galvanised steel hinge 100 mm", 4.15, (4, 10, 20)),
    ],
    "office": [
        ("B-3001", "Copy paper A4, 80 g/m², ream of 500", 4.20, (10, 20, 40, 50)),
        ("B-3015", "Ballpoint pens, blue, box of 50", 11.90, (1, 2, 5)),
        ("B-3022", "Lever arch files A4, 80 mm, assorted colours", 2.85, (10, 20, 30)),
        ("B-3040", "Sticky notes 76 x 76 mm, 12 pads", 7.40, (2, 5, 10)),
        ("B-3055", "Stapler, 30 sheets capacity", 13.50, (1, 2, 5)),
        ("B-3061", "Staples 24/6, box of 5000", 2.10, (2, 5, 10)),
        ("B-3078", "Whiteboard markers, assorted, set of 4", 5.95, (2, 5, 10)),
        ("B-3102", "Ergonomic office chair, mesh back", 229.00, (1, 2, 4, 6)),
        ("B-3120", "Desk organiser, black", 16.80, (1, 3, 5)),
        ("B-3133", "Laser toner cartridge, black, 3,000 pages", 84.00, (1, 2, 4)),
        ("B-3147", "Envelopes C5, self-seal, box of 500", 18.40, (1, 2, 3)),
        ("B-3160", "Laminating pouches A4, 125 micron, pack of 100", 12.90, (1, 2, 5)),
    ],
    "it": [
        ("C-5001", '27" IPS monitor, 2560 x 1440', 289.00, (1, 2, 4, 10)),
        ("C-5012", "Wireless keyboard and mouse set", 49.90, (1, 5, 10)),
        ("C-5020", "USB-C docking station, 100 W PD", 169.00, (1, 2, 5)),
        ("C-5033", "Cat 6A patch cable, 2 m, grey", 4.60, (10, 25, 50)),
        ("C-5041", "SSD 1 TB, NVMe M.2", 79.00, (1, 2, 4)),
        ("C-5058", "24-port gigabit PoE switch", 419.00, (1, 2)),
        ("C-5066", 'Laptop 14", 16 GB RAM, 512 GB SSD', 1049.00, (1, 2, 3, 5)),
        ("C-5072", "Annual antivirus licence, per seat", 29.00, (5, 10, 25, 50)),
        ("C-5089", "On-site support, per hour", 95.00, (1, 2, 3.5, 4, 7.5)),
        ("C-5093", "HDMI 2.1 cable, 3 m", 12.90, (2, 5, 10)),
        ("C-5104", "UPS 1500 VA, line-interactive", 329.00, (1, 2)),
    ],
    "food": [
        ("D-7001", "Arabica coffee beans, 1 kg", 18.50, (5, 10, 20)),
        ("D-7010", "Café crème capsules, box of 100", 32.00, (2, 4, 10)),
        ("D-7018", "Crème fraîche 30 %, 5 kg tub", 21.40, (1, 2, 4)),
        ("D-7025", "Extra virgin olive oil, 5 L", 38.90, (1, 2, 6)),
        ("D-7033", "Jalapeño slices, 3 kg tin", 14.20, (2, 4, 6)),
        ("D-7040", "Disposable nitrile gloves, box of 100", 7.80, (5, 10, 20)),
        ("D-7052", "Paper napkins 33 x 33 cm, pack of 500", 9.60, (4, 10, 20)),
        ("D-7066", "Emmentaler cheese, grated, 2.5 kg", 27.30, (1, 2, 4)),
        ("D-7071", "Basmati rice, 10 kg sack", 24.90, (1, 3, 5)),
        ("D-7085", "Gastronorm container 1/1, 65 mm, stainless", 19.70, (2, 6, 12)),
        ("D-7092", "Takeaway cups 300 ml, sleeve of 50", 6.10, (10, 20, 40)),
        ("D-7104", "Dishwasher detergent, 10 L", 34.50, (1, 2, 4)),
    ],
}

FX = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "CHF": 0.94, "SEK": 11.40}
CURRENCY_SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£", "CHF": "Fr.", "SEK": "kr"}

# (terms, days until due); weights favour Net 30
PAYMENT_TERMS = [("Net 30", 30, 8), ("Net 14", 14, 3), ("Net 45", 45, 2), ("Net 60", 60, 1),
                 ("Net 10", 10, 1), ("Due on receipt", 0, 2)]

NOTES_EN = [
    "Delivery to loading dock B.",
    "Please quote the invoice number with your payment.",
    "Goods remain our property until paid in full.",
    "Partial delivery; remaining items to follow next week.",
    "Prices include delivery to the customer's premises.",
    "2 % early-payment discount if paid within 10 days.",
    "Thank you for your business!",
    "Reverse charge: VAT to be accounted for by the recipient.",
]
NOTES_LOCAL = {
    "DE": ["Lieferung frei Haus, Zahlung ohne Abzug.",
           "Bitte geben Sie bei Zahlung die Rechnungsnummer an.",
           "Ansprechpartner: Jürgen Weiß, Tel. 089 555 0142."],
    "FR": ["Paiement par virement bancaire à réception de facture.",
           "Livraison effectuée le matin, accès par la cour arrière."],
    "ES": ["Entrega en horario de mañana, de 8:00 a 13:00.",
           "Pago mediante transferencia bancaria a 30 días."],
    "PT": ["Pagamento por transferência bancária.", "Entrega no armazém n.º 2."],
    "SE": ["Leverans till lastkaj 3, ring vid ankomst.", "Betalning via bankgiro 5050-1055."],
    "FI": ["Toimitus lastauslaiturille, soita saavuttaessa."],
    "CH": ["Zahlbar innert 30 Tagen netto.", "Lieferung an Empfang, 2. Stock."],
}

# LLM "translations" of city names: a mismatch under the normalized comparator.
EXONYMS = {"München": "Munich", "Köln": "Cologne", "Genève": "Geneva", "Lisboa": "Lisbon",
           "Göteborg": "Gothenburg", "Zürich": "Zurich", "València": "Valencia"}
COUNTRY_NAMES = {"DE": "Germany", "FR": "France", "ES": "Spain", "PT": "Portugal",
                 "FI": "Finland", "SE": "Sweden", "CH": "Switzerland", "GB": "United Kingdom",
                 "US": "USA"}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]

# --------------------------------------------------------------------------------------
# Eval schema
# --------------------------------------------------------------------------------------


def _money(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "number", "description": description,
            "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}, **extra}


def build_schema() -> dict[str, Any]:
    address = {
        "type": "object",
        "description": "Postal address of the vendor as printed on the invoice.",
        "required": ["street", "city", "postal_code", "country"],
        "properties": {
            "street": {"type": "string", "description": "Street and house number.",
                       "x-eval-compare": {"levenshtein": {"threshold": 0.9}}},
            "city": {"type": "string",
                     "description": "City in the local spelling (München, not Munich).",
                     "x-eval-compare": "normalized"},
            "postal_code": {"type": "string",
                            "description": "Postal code kept as text: leading zeros and "
                                           "spaces matter (01067, 111 21).",
                            "x-eval-transform": ["strip"], "x-eval-compare": "exact"},
            "country": {"type": "string", "pattern": "^[A-Z]{2}$",
                        "description": "ISO 3166-1 alpha-2 country code.",
                        "x-eval-compare": "exact"},
        },
    }
    line_item = {
        "type": "object",
        "required": ["sku", "description", "quantity", "unit_price", "amount"],
        "properties": {
            "sku": {"type": "string", "description": "Vendor article number; the alignment key.",
                    "x-eval-compare": "exact"},
            "description": {"type": "string", "description": "Article text as printed.",
                            "x-eval-compare": {"levenshtein": {"threshold": 0.85}}},
            "quantity": {"type": "number", "exclusiveMinimum": 0,
                         "description": "Quantity billed (hours may be fractional).",
                         "x-eval-compare": "numeric"},
            "unit_price": {"type": "number", "minimum": 0,
                           "description": "Net price per unit in the invoice currency.",
                           "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
            "amount": _money("Net line amount: quantity x unit_price, rounded to cents."),
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Invoice extraction",
        "description": "One supplier invoice extracted from a PDF or scan. Extracted records "
                       "are paired with gold records by invoice_id; line items are aligned "
                       "by SKU, so their order does not matter.",
        "type": "object",
        "x-eval-id": "invoice_id",
        "required": ["invoice_id", "vendor", "customer", "issue_date", "due_date", "currency",
                     "line_items", "subtotal", "tax_rate", "tax", "total", "paid"],
        "properties": {
            "invoice_id": {"type": "string", "pattern": "^INV-[0-9]{4}-[0-9]{5}$",
                           "description": "Invoice number as printed, e.g. INV-2026-00017.",
                           "x-eval-compare": "exact"},
            "vendor": {
                "type": "object",
                "description": "The party that issued the invoice.",
                "required": ["name", "address"],
                "properties": {
                    "name": {"type": "string", "description": "Legal name of the vendor.",
                             "x-eval-compare": {"levenshtein": {"threshold": 0.9}}},
                    "vat_id": {"type": ["string", "null"],
                               "description": "VAT registration number; null when the vendor "
                                              "has none (US vendors).",
                               "x-eval-compare": "normalized"},
                    "address": address,
                },
            },
            "customer": {
                "type": "object",
                "description": "The party billed.",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "description": "Name of the customer.",
                             "x-eval-compare": {"levenshtein": {"threshold": 0.9}}},
                    "email": {"type": ["string", "null"], "format": "email",
                              "description": "Billing e-mail address (case does not matter).",
                              "x-eval-transform": ["strip", "lowercase"],
                              "x-eval-compare": "exact"},
                },
            },
            "issue_date": {"type": "string", "format": "date",
                           "description": "Invoice date (ISO 8601 in gold).",
                           "x-eval-compare": "date"},
            "due_date": {"type": ["string", "null"], "format": "date",
                         "description": "Payment due date (ISO 8601 in gold).",
                         "x-eval-compare": "date"},
            "currency": {"type": "string", "enum": ["EUR", "USD", "GBP", "CHF", "SEK"],
                         "description": "ISO 4217 code; a symbol such as € does not count.",
                         "x-eval-compare": "exact"},
            "payment_terms": {"type": ["string", "null"],
                              "description": "Payment terms as printed, e.g. Net 30.",
                              "x-eval-compare": "normalized"},
            "line_items": {
                "type": "array",
                "minItems": 1,
                "description": "Invoice lines, matched to gold lines by SKU.",
                "x-eval-align": {"match_by": "key_field", "key": "sku"},
                "items": line_item,
            },
            "subtotal": _money("Sum of the line amounts, before tax."),
            "tax_rate": {"type": "number", "minimum": 0, "maximum": 1,
                         "description": "Tax rate as a fraction: 0.19 for 19 %.",
                         "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.0005}}}},
            "tax": _money("Tax amount: subtotal x tax_rate, rounded to cents."),
            "total": _money("Amount due: subtotal + tax.", **{"x-eval-weight": 3}),
            "paid": {"type": "boolean", "description": "Whether the invoice is marked as paid.",
                     "x-eval-compare": "exact"},
            "notes": {"type": ["string", "null"],
                      "description": "Free-text remark printed on the invoice, if any.",
                      "x-eval-compare": "levenshtein", "x-eval-threshold": 0.8,
                      "x-eval-weight": 0.5},
        },
    }


# --------------------------------------------------------------------------------------
# Gold
# --------------------------------------------------------------------------------------


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(n))


def _vat_id(rng: random.Random, country: str) -> str | None:
    if country == "DE":
        return "DE" + str(rng.randint(1, 9)) + _digits(rng, 8)
    if country == "FR":
        return "FR" + _digits(rng, 2) + str(rng.randint(3, 9)) + _digits(rng, 8)
    if country == "ES":
        return "ES" + rng.choice("AB") + _digits(rng, 8)
    if country == "PT":
        return "PT5" + _digits(rng, 8)
    if country == "FI":
        return "FI" + _digits(rng, 8)
    if country == "SE":
        return "SE5" + _digits(rng, 9) + "01"
    if country == "CH":
        d = _digits(rng, 9)
        return f"CHE-{d[:3]}.{d[3:6]}.{d[6:]} MWST"
    if country == "GB":
        return "GB" + _digits(rng, 9)
    return None  # US vendors have no VAT number


def build_vendors(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{seed}/vendors")
    out = []
    for name, street, city, postal, country, categories, us_tax in VENDORS:
        out.append({
            "name": name, "vat_id": _vat_id(rng, country), "street": street, "city": city,
            "postal_code": postal, "country": country, "categories": categories,
            "currency": COUNTRIES[country][0],
            "tax_rate": us_tax if us_tax is not None else COUNTRIES[country][1],
        })
    return out


def build_gold(seed: int, n: int = N_INVOICES) -> list[dict[str, Any]]:
    rng = random.Random(f"{seed}/gold")
    vendors = build_vendors(seed)
    start = dt.date(2026, 1, 2)
    offsets = sorted(rng.randrange(0, 316) for _ in range(n))
    number = 16
    records = []
    for offset in offsets:
        number += rng.choice((1, 1, 1, 2, 3))
        vendor = rng.choice(vendors)
        cust_name, cust_email = rng.choice(CUSTOMERS)
        issue = start + dt.timedelta(days=offset)
        terms, days, _ = rng.choices(PAYMENT_TERMS, weights=[t[2] for t in PAYMENT_TERMS])[0]
        currency = vendor["currency"]
        catalog = [p for c in vendor["categories"] for p in PRODUCTS[c]]
        n_items = rng.choices(range(1, 9), weights=(14, 16, 16, 14, 11, 8, 6, 4))[0]
        items = []
        for sku, description, base, quantities in rng.sample(catalog, n_items):
            quantity = rng.choice(quantities)
            unit_price = round(base * FX[currency] * rng.uniform(0.96, 1.04), 2)
            items.append({"sku": sku, "description": description, "quantity": quantity,
                          "unit_price": unit_price, "amount": round(quantity * unit_price, 2)})
        subtotal = round(sum(item["amount"] for item in items), 2)
        tax_rate = vendor["tax_rate"]
        tax = round(subtotal * tax_rate, 2)
        notes = None
        if rng.random() < 0.5:
            notes = rng.choice(NOTES_EN + NOTES_LOCAL.get(vendor["country"], []))
        records.append({
            "invoice_id": f"INV-2026-{number:05d}",
            "vendor": {
                "name": vendor["name"],
                "vat_id": vendor["vat_id"],
                "address": {"street": vendor["street"], "city": vendor["city"],
                            "postal_code": vendor["postal_code"], "country": vendor["country"]},
            },
            "customer": {"name": cust_name, "email": cust_email},
            "issue_date": issue.isoformat(),
            "due_date": (issue + dt.timedelta(days=days)).isoformat(),
            "currency": currency,
            "payment_terms": terms,
            "line_items": items,
            "subtotal": subtotal,
            "tax_rate": tax_rate,
            "tax": tax,
            "total": round(subtotal + tax, 2),
            "paid": rng.random() < 0.35,
            "notes": notes,
        })
    return records


# --------------------------------------------------------------------------------------
# Extraction errors
# --------------------------------------------------------------------------------------


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))


def _typo(rng: random.Random, text: str) -> str:
    """One character swapped with its neighbour, dropped or doubled."""
    letters = [i for i, ch in enumerate(text) if ch.isalnum()]
    i = rng.choice(letters)
    op = rng.choice(("swap", "drop", "double"))
    if op == "swap" and i + 1 < len(text) and text[i] != text[i + 1]:
        return text[:i] + text[i + 1] + text[i] + text[i + 2:]
    if op == "drop":
        return text[:i] + text[i + 1:]
    return text[:i] + text[i] + text[i:]


def _extra_whitespace(rng: random.Random, text: str) -> str:
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    where = rng.choice(("inner", "inner", "end", "start")) if spaces else "end"
    if where == "inner":
        i = rng.choice(spaces)
        return text[:i] + "  " + text[i + 1:]
    return text + " " if where == "end" else " " + text


def _format_money(rng: random.Random, value: float, style: str) -> str:
    """A number as an LLM might print it: "83.30", "1.234,50", "1 234,50", "1'234.50"."""
    if rng.random() < 0.4:
        return f"{value:.2f}"
    text = f"{value:,.2f}"  # 1,234.50; locale independent
    if style == "dot":
        return text.replace(",", "_").replace(".", ",").replace("_", ".")
    if style == "space":
        return text.replace(",", " ").replace(".", ",")
    if style == "apostrophe":
        return text.replace(",", "'")
    return text


def _format_date(rng: random.Random, iso: str) -> str:
    d = dt.date.fromisoformat(iso)
    # Slashed dates only when unambiguous (day > 12): 03/04/2026 could be either.
    styles = ["named", "datetime", "dotted", "short_named"] + (["slash"] if d.day > 12 else [])
    style = rng.choice(styles)
    if style == "slash":
        return f"{d.day:02d}/{d.month:02d}/{d.year}"
    if style == "named":
        return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"
    if style == "datetime":
        return f"{iso}T00:00:00"
    if style == "dotted":
        return f"{d.day:02d}.{d.month:02d}.{d.year}"
    return f"{d.day} {MONTHS[d.month - 1][:3]} {d.year}"


class Corruptor:
    """Applies LLM-style extraction errors to copies of gold records.

    ``rate`` scales every base probability (see ``RATES``). Each error that changed
    something is counted by kind in ``counts``.
    """

    def __init__(self, rng: random.Random, rate: float) -> None:
        self.rng = rng
        self.rate = rate
        self.counts: Counter[str] = Counter()

    def chance(self, base: float) -> bool:
        return self.rng.random() < min(0.9, base * self.rate)

    def hit(self, kind: str) -> None:
        self.counts[kind] += 1

    # -- scalar helpers ----------------------------------------------------------------

    def text(self, value: str, *, typo: float = 0.02, case: float = 0.012,
             accents: float = 0.03, space: float = 0.012, lower: bool = False) -> str:
        if strip_accents(value) != value and self.chance(accents):
            self.hit("accent_strip")
            return strip_accents(value)
        if self.chance(typo):
            self.hit("typo")
            return _typo(self.rng, value)
        if self.chance(case):
            changed = value.lower() if lower and self.rng.random() < 0.5 else value.upper()
            if changed != value:
                self.hit("case")
                return changed
        if self.chance(space):
            self.hit("whitespace")
            return _extra_whitespace(self.rng, value)
        return value

    def money(self, value: float, style: str, *, as_string: float = 0.02, cents: float = 0.006,
              decimal: float = 0.006, rounding: float = 0.012,
              allow_rounding: bool = True) -> Any:
        if self.chance(as_string):
            self.hit("number_as_string")
            return _format_money(self.rng, value, style)
        if value and self.chance(cents):
            self.hit("cents")
            return round(value * 100)
        if value and self.chance(decimal):
            self.hit("digit_slip")  # decimal separator misread: 0.35 -> 3.5 or 35.0 -> 3.5
            return round(value * 10, 2) if self.rng.random() < 0.5 else round(value / 10, 2)
        if allow_rounding and value >= 0.02 and self.chance(rounding):
            self.hit("rounding")
            return round(value + self.rng.choice((-0.01, 0.01)), 2)
        return value

    def date(self, iso: str, *, fmt: float = 0.06, off: float = 0.012) -> str:
        if self.chance(fmt):
            self.hit("date_format")
            return _format_date(self.rng, iso)
        if self.chance(off):
            self.hit("date_off_by_one")
            d = dt.date.fromisoformat(iso) + dt.timedelta(days=self.rng.choice((-1, 1)))
            return d.isoformat()
        return iso

    def drop_or_null(self, obj: dict[str, Any], key: str, *, missing: float,
                     null: float) -> None:
        if key not in obj:
            return
        if self.chance(missing):
            self.hit("missing_key")
            del obj[key]
        elif obj[key] is not None and self.chance(null):
            self.hit("null_value")
            obj[key] = None

    # -- the record --------------------------------------------------------------------

    def corrupt(self, gold: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        rec = copy.deepcopy(gold)
        country = gold["vendor"]["address"]["country"]
        style = COUNTRIES[country][4]
        vendor, address, customer = rec["vendor"], rec["vendor"]["address"], rec["customer"]

        vendor["name"] = self.text(vendor["name"])
        if vendor["vat_id"] is not None:
            if self.chance(0.015):
                self.hit("case")
                vendor["vat_id"] = vendor["vat_id"].lower()
            elif country != "CH" and self.chance(0.008):
                self.hit("whitespace")  # printed grouping copied: "DE 123 456 789"
                v = vendor["vat_id"]
                vendor["vat_id"] = v[:2] + " " + " ".join(v[i:i + 3] for i in range(2, len(v), 3))
        self.drop_or_null(vendor, "vat_id", missing=0.015, null=0.012)
        address["street"] = self.text(address["street"])
        if address["city"] in EXONYMS and self.chance(0.02):
            self.hit("exonym")
            address["city"] = EXONYMS[address["city"]]
        else:
            address["city"] = self.text(address["city"], typo=0.008, accents=0.05)
        if address["postal_code"].isdigit() and self.chance(0.015):
            self.hit("type_slip")  # 01067 -> 1067
            address["postal_code"] = int(address["postal_code"])
        if self.chance(0.012):
            self.hit("country_name")
            address["country"] = COUNTRY_NAMES[country]

        customer["name"] = self.text(customer["name"])
        if self.chance(0.006):
            self.hit("swapped_values")  # billed party and issuer confused
            vendor["name"], customer["name"] = customer["name"], vendor["name"]
        if self.chance(0.025):
            self.hit("case")
            email = customer["email"]
            customer["email"] = email.capitalize() if rng.random() < 0.5 else email.upper()
        elif self.chance(0.008):
            self.hit("typo")
            local, domain = customer["email"].split("@")
            customer["email"] = _typo(rng, local) + "@" + domain
        self.drop_or_null(customer, "email", missing=0.01, null=0.008)

        rec["issue_date"] = self.date(rec["issue_date"])
        rec["due_date"] = self.date(rec["due_date"], off=0.015)
        self.drop_or_null(rec, "due_date", missing=0.012, null=0.012)

        currency = rec["currency"]
        if self.chance(0.025):
            self.hit("currency_symbol")
            rec["currency"] = CURRENCY_SYMBOLS[currency]
        elif self.chance(0.015):
            self.hit("currency_lowercase")
            rec["currency"] = currency.lower()
        elif self.chance(0.012):
            self.hit("wrong_enum")
            rec["currency"] = "USD" if currency == "EUR" else "EUR"

        terms = rec["payment_terms"]
        if self.chance(0.02):
            self.hit("wrong_enum")
            rec["payment_terms"] = "Net 60" if terms != "Net 60" else "Net 30"
        elif self.chance(0.015):
            self.hit("case")
            rec["payment_terms"] = terms.upper() if rng.random() < 0.5 else terms.lower()
        self.drop_or_null(rec, "payment_terms", missing=0.01, null=0.005)

        rec["line_items"] = self.line_items(rec["line_items"], gold, style)

        for key in ("subtotal", "tax", "total"):
            rec[key] = self.money(rec[key], style)
        if gold["tax"] and self.chance(0.01):
            self.hit("wrong_value")  # the net amount read as the amount due
            rec["total"] = rec["subtotal"]
        if gold["tax_rate"] and self.chance(0.04):
            self.hit("tax_rate_percent")
            pct = round(rec["tax_rate"] * 100, 3)
            rec["tax_rate"] = int(pct) if pct == int(pct) else pct
        elif self.chance(0.006):
            self.hit("number_as_string")
            rec["tax_rate"] = f"{rec['tax_rate'] * 100:g}%"
        self.drop_or_null(rec, "subtotal", missing=0.004, null=0.004)
        self.drop_or_null(rec, "tax", missing=0.004, null=0.004)

        if self.chance(0.015):
            self.hit("type_slip")
            rec["paid"] = rng.choice(("yes", "no", "true", "false", "unpaid"))
        elif self.chance(0.015):
            self.hit("wrong_value")
            rec["paid"] = not rec["paid"]
        self.drop_or_null(rec, "paid", missing=0.01, null=0.006)

        if rec["notes"] is not None:
            if self.chance(0.03):
                self.hit("truncated")
                words = rec["notes"].split()
                rec["notes"] = " ".join(words[: max(1, len(words) // 2)])
            else:
                rec["notes"] = self.text(rec["notes"], case=0.005)
            self.drop_or_null(rec, "notes", missing=0.025, null=0.02)
        elif self.chance(0.015):
            self.hit("invented_value")
            rec["notes"] = rng.choice(("Thank you for your business!",
                                       "Payment by bank transfer.", "See attached delivery note."))
        elif self.chance(0.06):
            self.hit("missing_key")
            del rec["notes"]

        self.invent_keys(rec, gold, country)
        self.rename_keys(rec)
        return rec

    def line_items(self, items: list[dict[str, Any]], gold: dict[str, Any],
                   style: str) -> list[dict[str, Any]]:
        rng = self.rng
        for item in items:
            if self.chance(0.004):
                self.hit("typo")  # an OCR slip in the SKU breaks alignment for this line
                item["sku"] = item["sku"].replace("0", "O", 1) if "0" in item["sku"] \
                    else _typo(rng, item["sku"])
            if "," in item["description"] and self.chance(0.02):
                self.hit("truncated")  # the model keeps only the head of the article text
                item["description"] = item["description"].split(",")[0]
            else:
                item["description"] = self.text(item["description"], lower=True)
            quantity = item["quantity"]
            if self.chance(0.008):
                self.hit("digit_slip")
                if quantity != int(quantity):
                    item["quantity"] = round(quantity * 10)  # decimal point lost
                elif quantity >= 10 and rng.random() < 0.5:
                    item["quantity"] = quantity * 10 if rng.random() < 0.5 else quantity // 10
                else:
                    item["quantity"] = quantity + 1
            elif self.chance(0.008):
                self.hit("number_as_string")
                item["quantity"] = f"{quantity:g}"
            item["unit_price"] = self.money(item["unit_price"], style,
                                            allow_rounding=item["unit_price"] >= 2)
            item["amount"] = self.money(item["amount"], style)
            if item["quantity"] != 1 and self.chance(0.008):
                self.hit("swapped_values")
                item["unit_price"], item["amount"] = item["amount"], item["unit_price"]
            if self.chance(0.002):
                self.hit("null_value")
                item["amount"] = None

        if len(items) >= 2 and self.chance(0.07):
            self.hit("reordered_line_items")
            before = [item["sku"] for item in items]
            while [item["sku"] for item in items] == before:
                rng.shuffle(items)
        if len(items) >= 2 and self.chance(0.025):
            self.hit("dropped_line_item")
            del items[rng.randrange(len(items))]
        if self.chance(0.02):
            self.hit("invented_line_item")
            items.insert(rng.randrange(len(items) + 1), self._invented_item(gold, items))
        if self.chance(0.015):
            self.hit("invented_key")
            key, value = rng.choice((("unit", "pcs"), ("currency", gold["currency"]),
                                     ("tax_rate", gold["tax_rate"]), ("discount", 0)))
            for item in items:
                item[key] = value
        return items

    def _invented_item(self, gold: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
        rng = self.rng
        taken = {item.get("sku") for item in items} | {item["sku"] for item in gold["line_items"]}
        if rng.random() < 0.5 and "SHIP" not in taken:
            price = round(rng.choice((9.9, 12.5, 15.0, 24.9)) * FX[gold["currency"]], 2)
            return {"sku": "SHIP", "description": "Shipping and handling", "quantity": 1,
                    "unit_price": price, "amount": price}
        # The model repeats an item under a neighbouring, unused article number.
        source = rng.choice(gold["line_items"])
        prefix, number = source["sku"].split("-")
        n = int(number) + 1
        while f"{prefix}-{n:04d}" in taken:
            n += 1
        return {**source, "sku": f"{prefix}-{n:04d}"}

    def invent_keys(self, rec: dict[str, Any], gold: dict[str, Any], country: str) -> None:
        rng = self.rng
        if not self.chance(0.04):
            return
        self.hit("invented_key")
        kind = rng.choice(("purchase_order", "discount", "shipping", "phone", "order_date"))
        if kind == "purchase_order":
            rec["purchase_order"] = f"PO-{rng.randint(1000, 9999)}"
        elif kind == "discount":
            rec["discount"] = 0
        elif kind == "shipping":
            rec["shipping"] = 0.0
        elif kind == "phone":
            rec["vendor"]["phone"] = (f"+{COUNTRIES[country][3]} {rng.randint(10, 99)} "
                                      f"{rng.randint(100, 999)} {rng.randint(1000, 9999)}")
        else:
            issued = dt.date.fromisoformat(gold["issue_date"])
            rec["order_date"] = (issued - dt.timedelta(days=rng.randint(2, 20))).isoformat()

    def rename_keys(self, rec: dict[str, Any]) -> None:
        if not self.chance(0.008):
            return
        old, new = self.rng.choice((("issue_date", "invoice_date"), ("total", "total_amount"),
                                    ("tax", "vat_amount"), ("line_items", "items")))
        if old not in rec:
            return
        self.hit("renamed_key")
        items = list(rec.items())
        rec.clear()
        rec.update((new if k == old else k, v) for k, v in items)


# --------------------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------------------

PROSE = [
    ("Here is the extracted data: ", ""),
    ("Sure! I extracted the following fields from the invoice:\n\n",
     "\n\nNote: the due date was inferred from the payment terms."),
]
UNREADABLE = "I could not read the document."
#: Multiplier on every base error probability: model-b errs about 2.5x as often.
RATES = {"model-a": 3.2, "model-b": 8.0}


def build_run(name: str, gold: list[dict[str, Any]], seed: int,
              ) -> tuple[list[Any], Counter[str], dict[str, Any]]:
    """The lines of one run, the error counts, and each recoverable object by invoice id."""
    rng = random.Random(f"{seed}/{name}")
    corruptor = Corruptor(rng, rate=RATES[name])
    objects = [corruptor.corrupt(g) for g in gold]
    counts = corruptor.counts
    recovered: dict[str, Any] = {o["invoice_id"]: o for o in objects}
    lines: list[Any] = list(objects)
    if name == "model-b":
        picks = rng.sample(range(len(gold)), 8)
        fenced, prose, trailing, unreadable, missing = (
            picks[0:2], picks[2:4], picks[4:5], picks[5:6], set(picks[6:8]))
        for i in fenced:
            lines[i] = "```json\n" + json.dumps(objects[i], ensure_ascii=False, indent=2) + "\n```"
            counts["fenced_json_string"] += 1
        for k, i in enumerate(prose):
            before, after = PROSE[k % len(PROSE)]
            lines[i] = before + json.dumps(objects[i], ensure_ascii=False) + after
            counts["prose_json_string"] += 1
        for i in trailing:
            body = json.dumps(objects[i], ensure_ascii=False, indent=2)
            lines[i] = "```json\n" + body[:-2] + ",\n}\n```"  # a trailing comma before the }
            counts["trailing_comma_string"] += 1
        for i in unreadable:
            lines[i] = UNREADABLE
            recovered[gold[i]["invoice_id"]] = None
            counts["unreadable_text"] += 1
        for i in missing:
            del recovered[gold[i]["invoice_id"]]
            counts["missing_record"] += 1
        lines = [line for i, line in enumerate(lines) if i not in missing]
        for i in range(len(lines) - 1):  # a little out of order
            if rng.random() < 0.08:
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
                counts["records_swapped"] += 1
    return lines, counts, recovered


# --------------------------------------------------------------------------------------
# Approximate scoring (for --stats only; the engine is the real judge)
# --------------------------------------------------------------------------------------

_MISSING = object()


def _leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(_leaves(v) for v in value)
    return 1


def _parse_date(value: Any) -> dt.date | None:
    if not isinstance(value, str):
        return None
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%d/%m/%Y", "%d.%m.%Y", "%B %d, %Y",
                "%d %b %Y"):
        try:
            return dt.datetime.strptime(value, fmt).date()
        except ValueError:
            continue
    return None


def _levenshtein(a: str, b: str) -> float:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return 1 - prev[-1] / max(len(a), len(b), 1)


def _fold(text: str) -> str:
    return " ".join(strip_accents(text).casefold().split())


def _leaf_ok(node: dict[str, Any], g: Any, e: Any) -> bool:
    if g is None or e is None:
        return g is None and e is None
    spec = node.get("x-eval-compare", "exact")
    name, params = (spec, {}) if isinstance(spec, str) else next(iter(spec.items()))
    for t in node.get("x-eval-transform", []):
        if not isinstance(e, str):
            return False
        g, e = (g.strip(), e.strip()) if t == "strip" else (g.lower(), e.lower())
    if name == "exact":
        return type(g) is type(e) and g == e
    if name == "numeric":
        try:
            diff = abs(float(g) - float(e))
        except (TypeError, ValueError):
            return False
        tol = params.get("tolerance", {})
        limit = tol["abs"] if "abs" in tol else tol.get("rel", 0) * abs(float(g))
        return diff <= limit + 1e-9
    if not isinstance(e, str):
        return False
    if name == "normalized":
        return _fold(g) == _fold(e)
    if name == "levenshtein":
        threshold = params.get("threshold", node.get("x-eval-threshold", 1.0))
        return _levenshtein(g, e) >= threshold
    if name == "date":
        return _parse_date(e) == _parse_date(g)
    raise ValueError(name)


def _score(node: dict[str, Any], g: Any, e: Any) -> tuple[int, int]:
    """(fields right, fields judged) for one gold/extracted pair under a schema node."""
    if "properties" in node:
        g = g if isinstance(g, dict) else {}
        e = e if isinstance(e, dict) else {}
        right = total = 0
        for key, sub in node["properties"].items():
            if key in g:
                r, t = _score(sub, g[key], e.get(key, _MISSING))
                right, total = right + r, total + t
        extra = sum(_leaves(v) for k, v in e.items() if k not in node["properties"])
        return right, total + extra
    if node.get("type") == "array":
        key = node["x-eval-align"]["key"]
        e_items = {i.get(key): i for i in e if isinstance(i, dict)} if isinstance(e, list) else {}
        right = total = 0
        for item in g:
            r, t = _score(node["items"], item, e_items.pop(item[key], _MISSING))
            right, total = right + r, total + t
        return right, total + sum(_leaves(i) for i in e_items.values())
    if e is _MISSING:
        return int(g is None), 1
    return int(_leaf_ok(node, g, e)), 1


def approx_accuracy(schema: dict[str, Any], gold: list[dict[str, Any]],
                    recovered: dict[str, Any]) -> float:
    right = total = 0
    for record in gold:
        r, t = _score(schema, record, recovered.get(record["invoice_id"], _MISSING))
        right, total = right + r, total + t
    return right / total


# --------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------


def _write(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def _jsonl(values: list[Any]) -> str:
    return "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values)


def generate(out: Path, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """Write the suite into ``out``; return per-run error counts and approximate accuracy."""
    out.mkdir(parents=True, exist_ok=True)
    schema = build_schema()
    gold = build_gold(seed)
    _write(out / SCHEMA_FILE, json.dumps(schema, ensure_ascii=False, indent=2) + "\n")
    _write(out / GOLD_FILE, _jsonl(gold))
    stats: dict[str, Any] = {}
    for name, filename in RUN_FILES.items():
        lines, counts, recovered = build_run(name, gold, seed)
        _write(out / filename, _jsonl(lines))
        stats[name] = {"counts": counts, "recovered": recovered, "lines": len(lines)}
    stats["_schema"], stats["_gold"] = schema, gold
    return stats


def _print_stats(stats: dict[str, Any]) -> None:
    runs = list(RUN_FILES)
    kinds = sorted({k for name in runs for k in stats[name]["counts"]})
    width = max(len(k) for k in kinds)
    print(f"{'error kind':<{width}}  " + "  ".join(f"{n:>8}" for n in runs))
    for kind in kinds:
        print(f"{kind:<{width}}  " + "  ".join(f"{stats[n]['counts'][kind]:>8}" for n in runs))
    print(f"{'lines written':<{width}}  " + "  ".join(f"{stats[n]['lines']:>8}" for n in runs))
    acc = [approx_accuracy(stats["_schema"], stats["_gold"], stats[n]["recovered"]) for n in runs]
    print(f"{'~fields right':<{width}}  " + "  ".join(f"{a:>8.1%}" for a in acc))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent,
                        help="output folder (default: this script's folder)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"random seed (default: {DEFAULT_SEED})")
    parser.add_argument("--stats", action="store_true",
                        help="print the injected error counts and an approximate accuracy")
    args = parser.parse_args(argv)
    stats = generate(args.out, args.seed)
    if args.stats:
        _print_stats(stats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
