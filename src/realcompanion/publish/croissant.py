"""Croissant 1.0 metadata (with the RAI extension) for a release, built with mlcroissant from its own schemas.

One RecordSet per resource, one Field per Table Schema field: nested objects
become sub-fields read by JSONPath from their column, lists are `repeated`,
primary keys are the record set `key` and single-field foreign keys are
`references`, but for one that would close a cycle of record sets (`_record_set`).
The distribution lists each data file with the sha256 that datapackage.json declares.
Building goes through `mlcroissant.Metadata`, whose rejection is a `ReadError` here,
so every caller (the command, publish's gate) reports it as one line.
"""
from __future__ import annotations

from .. import card
from ..names import CROISSANT as FILE
from ..release import ReadError, Release, declared_sha256
from . import rai
from .documents import stated

CONFORMS_TO = ("http://mlcommons.org/croissant/1.0", "http://mlcommons.org/croissant/RAI/1.0")
_SCALAR_TYPES = {"string": "TEXT", "integer": "INTEGER", "number": "FLOAT", "boolean": "BOOL",
                 "date": "DATE", "datetime": "DATETIME"}  # Table Schema type -> mlcroissant.DataType name
_ENCODINGS = {"jsonl": "JSON_LINES"}  # Frictionless `format` -> mlcroissant.EncodingFormat name


def _table_type(arrow_type) -> str:
    """Table Schema type name of an Arrow scalar as the release reads it (dates arrive as strings)."""
    import pyarrow as pa

    checks = (("boolean", pa.types.is_boolean), ("integer", pa.types.is_integer),
              ("number", pa.types.is_floating), ("string", pa.types.is_string))
    return next(name for name, check in checks if check(arrow_type))


def _field(ctx, resource: str, file_id: str, path: list[str], arrow_type, table_type: str | None, description=None):
    """One Croissant field for the column (or struct member) at `path`, typed from the release's Arrow schema."""
    import mlcroissant as mlc
    import pyarrow as pa

    repeated = pa.types.is_list(arrow_type)
    inner = arrow_type.value_type if repeated else arrow_type
    common = dict(ctx=ctx, id="/".join([resource, *path]), name=path[-1], description=description,
                  repeated=repeated or None)
    if pa.types.is_struct(inner):
        return mlc.Field(**common, sub_fields=[_field(ctx, resource, file_id, [*path, child.name], child.type, None)
                                               for child in inner])
    kind = table_type if table_type in _SCALAR_TYPES else _table_type(inner)
    source = mlc.Source(ctx=ctx, file_object=file_id, extract=mlc.Extract(ctx=ctx, column=path[0]),
                        transforms=[mlc.Transform(ctx=ctx, json_path=".".join(path[1:]))] if len(path) > 1 else [])
    return mlc.Field(**common, data_types=[getattr(mlc.DataType, _SCALAR_TYPES[kind])], source=source)


def _record_set(ctx, release: Release, name: str, graph):
    """The resource's RecordSet; `graph` (networkx.DiGraph of record sets, a reference an edge) grows by the
    references it states. mlcroissant reads a record set after those it references, so a reference that closes a
    cycle (a message replying to a message of the same set) leaves `records()` unable to read any of them
    (`NetworkXUnfeasible`): such a foreign key is stated in the field's description instead."""
    import mlcroissant as mlc

    schema, arrow = release.table_schema(name), release.arrow_schema(name)
    path = release.resource(name)["path"]
    fields = {f["name"]: _field(ctx, name, path, [f["name"]], arrow.field(f["name"]).type, f["type"],
                                f.get("description")) for f in schema["fields"]}
    graph.add_node(name)
    for key in schema.get("foreignKeys", []):
        if len(key["fields"]) == 1:
            target = key["reference"]["resource"] or name  # "": the resource itself
            referenced, field = f"{target}/{key['reference']['fields'][0]}", fields[key["fields"][0]]
            if target == name or _reaches(graph, target, name):
                field.description = " ".join(filter(None, [field.description, f"References {referenced} (a "
                                                           "foreign key of the Table Schema; not a Croissant "
                                                           "reference, which may not form a cycle)."]))
                continue
            graph.add_edge(name, target)
            field.references = mlc.Source(ctx=ctx, field=referenced)
    return mlc.RecordSet(ctx=ctx, id=name, name=name, description=release.resource(name).get("description"),
                         key=[f"{name}/{k}" for k in release.primary_key(name)] or None,
                         fields=list(fields.values()))


def _reaches(graph, source: str, target: str) -> bool:
    import networkx as nx

    return graph.has_node(source) and graph.has_node(target) and nx.has_path(graph, source, target)


def _file_object(ctx, release: Release, name: str):
    import mlcroissant as mlc

    resource, descriptor = release.resource(name), release.root / "datapackage.json"
    path, file_format = resource["path"], resource.get("format")
    if file_format not in _ENCODINGS:
        raise ReadError(descriptor, f"resource '{name}': no Croissant encoding for format '{file_format}'",
                        field="format")
    digest = declared_sha256(release, name)
    if digest is None:
        raise ReadError(descriptor, f"no sha256 declared for {path}: run `realcompanion refresh`",
                        field=f"resources.{name}.hash")
    return mlc.FileObject(ctx=ctx, id=path, name=path, content_url=path, description=resource.get("description"),
                          encoding_formats=[getattr(mlc.EncodingFormat, _ENCODINGS[file_format])],
                          content_size=f"{release.path(name).stat().st_size} B",
                          sha256=digest)


def _authors(release: Release) -> list[str]:
    """The names of the descriptor's authors, Croissant's creators. Data Package v2, the release's profile, gives a
    contributor's roles as a list (`roles`) and its name as `title` or `givenName` and `familyName`; v1's one `role`
    reads too, and so does `roles` written as one string, which Frictionless accepts. An author without a name is
    one line: Croissant names every creator; so is a role or name part that is not text (Frictionless checks
    neither `roles` nor `givenName`), and a name of spaces alone."""
    descriptor, names = release.root / "datapackage.json", []
    for n, contributor in enumerate(release.descriptor.get("contributors", [])):
        key = "roles" if contributor.get("roles") is not None else "role"
        roles = contributor.get(key)
        roles = [] if roles is None else [roles] if isinstance(roles, str) else roles
        if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
            raise ReadError(descriptor, f"roles {roles!r}: a list of role names (such as [\"author\"])",
                            field=f"contributors.{n}.{key}")
        if "author" not in roles:
            continue
        for part in ("givenName", "familyName"):
            if not isinstance(contributor.get(part, ""), str):
                raise ReadError(descriptor, f"{contributor[part]!r}: a name is text", field=f"contributors.{n}.{part}")
        name = (contributor.get("title") or "").strip() or " ".join(
            part.strip() for part in (contributor.get("givenName", ""), contributor.get("familyName", "")) if part.strip())
        if not name:
            raise ReadError(descriptor, "an author without a name: give its title (or givenName and familyName), which "
                            "croissant.json names as a creator", field=f"contributors.{n}.title")
        names.append(name)
    return names


def metadata(release: Release):
    """The release as an `mlcroissant.Metadata`; a description Croissant rejects is a `ReadError`."""
    import mlcroissant as mlc
    import networkx as nx

    from .cite import Citation, bibtex

    descriptor, ctx, graph = release.descriptor, mlc.Context(conforms_to=CONFORMS_TO[0]), nx.DiGraph()
    try:
        return mlc.Metadata(
            ctx=ctx,
            name=stated(release, "name"),
            description=descriptor.get("description"),
            conforms_to=list(CONFORMS_TO),
            version=release.version,
            date_published=descriptor.get("created"),
            license=[lic.get("path") or lic["name"] for lic in descriptor.get("licenses", [])],
            url=descriptor.get("homepage"),
            keywords=descriptor.get("keywords"),
            in_language=card.languages(release),
            creators=[mlc.Person(ctx=ctx, name=name) for name in _authors(release)],
            cite_as=bibtex(Citation.of(release, revision_from_git=False)),
            distribution=[_file_object(ctx, release, name) for name in release.resources],
            record_sets=[_record_set(ctx, release, name, graph) for name in release.resources],
            **rai.statements(release.root / card.CARD),
        )
    except mlc.ValidationError as exc:  # a heading line, then one "  -  [node] problem" line per error
        problems = [line.strip(" -") for line in str(exc).splitlines()[1:] if line.strip()] or [str(exc)]
        raise ReadError(release.root / FILE, f"Croissant rejects the description: {'; '.join(problems)}") from None


def build(release: Release) -> dict:
    """croissant.json's content for the release."""
    return metadata(release).to_json()
