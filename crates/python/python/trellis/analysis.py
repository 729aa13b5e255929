"""Reflections and interactions as rows for analysis: a list of dicts, or a pandas
DataFrame when pandas is installed (pandas is not a dependency)."""


def _flatten(prefix, value, row):
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, inner, row)
    else:
        row[prefix] = value


def reflections_table(events, flatten=True, as_dataframe=None):
    """One row per reflect_attribute_values or receive_interaction event: ``kind``,
    ``object`` or ``interaction_class``, ``object_class``, ``time``, ``sender`` and each
    value (nested records as ``Position.X`` with ``flatten``). Other events are skipped.

    ``as_dataframe``: True asks for a pandas DataFrame (ImportError without pandas), False
    for the list of dicts, None (the default) for a DataFrame when pandas is importable.
    """
    rows = []
    for event in events:
        if event.kind not in ("reflect_attribute_values", "receive_interaction"):
            continue
        row = {"kind": event.kind}
        for key in ("object", "object_class", "interaction_class", "time", "sender"):
            if key in event.args:
                row[key] = event.args[key]
        for name, value in event.values.items():
            if flatten:
                _flatten(name, value, row)
            else:
                row[name] = value
        rows.append(row)
    if as_dataframe is False:
        return rows
    try:
        import pandas
    except ImportError:
        if as_dataframe:
            raise
        return rows
    return pandas.DataFrame(rows)
