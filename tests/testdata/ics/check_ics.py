#!/usr/bin/python3
"""Reads nestor's -o ics calendars with Debian's python3-icalendar, an
iCalendar (RFC 5545) parser independent of the Go library that writes them,
and checks what RFC 5545 asks of them and what nestor promises:

  * the file parses, and the parser recorded no error on any component;
  * VCALENDAR has VERSION 2.0 and a PRODID (section 3.6);
  * every VEVENT has UID, DTSTAMP and DTSTART (section 3.6.1), its UID is
    unique in the calendar, DTSTAMP is a UTC date-time, DTSTART a DATE (an
    all-day event) and DTEND, when present, the next day.

Usage: check_ics.py FILE... ; prints, for each FILE, one JSON line: the
calendar's X- properties (name -> list of values) and its events (uid,
summary, description, dtstart, dtend and their X- properties), as the parser
read them (folding undone, TEXT unescaped). Exits 1 naming the file and the
rule on the first failure.
"""
import datetime
import json
import sys

from icalendar import Calendar


def fail(path, why):
    sys.stderr.write("%s: %s\n" % (path, why))
    sys.exit(1)


def values(v):
    return [str(x) for x in (v if isinstance(v, list) else [v])]


def check(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        cal = Calendar.from_ical(data)
    except Exception as e:  # the parser's own refusal
        fail(path, "does not parse: %s" % e)
    if cal.name != "VCALENDAR":
        fail(path, "not a VCALENDAR: %s" % cal.name)
    for c in cal.walk():
        if getattr(c, "errors", None):
            fail(path, "%s: parser errors %s" % (c.name, c.errors))
    if str(cal.get("VERSION")) != "2.0":
        fail(path, "VERSION %r, want 2.0" % cal.get("VERSION"))
    if not cal.get("PRODID"):
        fail(path, "no PRODID")
    out = {"x": {}, "events": []}
    for k, v in cal.items():
        if k.startswith("X-"):
            out["x"][k] = values(v)
    uids = set()
    for ev in cal.walk("VEVENT"):
        for prop in ("UID", "DTSTAMP", "DTSTART"):
            if prop not in ev:
                fail(path, "a VEVENT without %s" % prop)
        uid = str(ev["UID"])
        if uid in uids:
            fail(path, "UID %s twice" % uid)
        uids.add(uid)
        stamp = ev.decoded("DTSTAMP")
        if not isinstance(stamp, datetime.datetime) or stamp.utcoffset() != datetime.timedelta(0):
            fail(path, "%s: DTSTAMP %r is not a UTC date-time" % (uid, stamp))
        start = ev.decoded("DTSTART")
        if isinstance(start, datetime.datetime) or not isinstance(start, datetime.date):
            fail(path, "%s: DTSTART %r is not a DATE" % (uid, start))
        end = None
        if "DTEND" in ev:
            end = ev.decoded("DTEND")
            if isinstance(end, datetime.datetime) or end != start + datetime.timedelta(days=1):
                fail(path, "%s: DTEND %r is not the day after DTSTART %r" % (uid, end, start))
        e = {"uid": uid, "summary": str(ev.get("SUMMARY", "")), "description": str(ev.get("DESCRIPTION", "")),
             "dtstart": start.isoformat(), "dtend": end.isoformat() if end else "", "x": {}}
        for k, v in ev.items():
            if k.startswith("X-"):
                e["x"][k] = values(v)
        out["events"].append(e)
    print(json.dumps(out, sort_keys=True))


for p in sys.argv[1:]:
    check(p)
