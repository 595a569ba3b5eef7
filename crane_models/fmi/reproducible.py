"""FMUs byte-identical for identical content: entries sorted, fixed time stamps and permissions, one compression
level, the GUID (FMI 2.0) or instantiation token (FMI 3.0) a hash of the content."""
from __future__ import annotations

import hashlib
import uuid
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

__all__ = ["ZIP_EPOCH", "TOKEN_ENTRY", "content_guid", "make_reproducible"]


# Every entry of a reproducible FMU gets this time stamp (the zip format's earliest) and these permissions.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def content_guid(xml_text: bytes, entries: dict) -> str:
    """GUID (FMI 2.0) or instantiation token (FMI 3.0) that identifies the FMU's content: a name-based UUID of
    the sha256 over every other entry and the model description without GUID and generation time."""
    digest = hashlib.sha256()
    for name in sorted(entries):
        digest.update(name.encode() + b"\0" + hashlib.sha256(entries[name]).digest())
    digest.update(xml_text)
    return "{" + str(uuid.uuid5(uuid.NAMESPACE_URL, "crane-cosim:" + digest.hexdigest())) + "}"


def _identify_model_description(xml_text: bytes, entries: dict) -> bytes:
    """The model description without generation time (a build time inside the FMU would change its hash)
    and with the content GUID."""
    root = ET.fromstring(xml_text)
    root.attrib.pop("generationDateAndTime", None)
    key = "guid" if "guid" in root.attrib else "instantiationToken"
    root.set(key, "")
    neutral = ET.tostring(root, encoding="UTF-8", xml_declaration=True)
    root.set(key, content_guid(neutral, entries))
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


# The FMI 3.0 runtime's copy of the instantiation token: hosts need not unpack modelDescription.xml (fmpy's
# simulate_fmu extracts only binaries/ and resources/), and the runtime checks the host's token against it.
TOKEN_ENTRY = "resources/crane_cosim_token.txt"


def _record_name() -> str:
    from .runtime import RECORD_NAME

    return RECORD_NAME


def make_reproducible(fmu_path: Path, complete=None, replace: dict | None = None, drop: tuple = ()) -> None:
    """Rewrite the FMU so that identical content gives identical bytes: entries sorted by name, fixed time
    stamps and permissions, a fixed compression level, the GUID from the content (:func:`content_guid`).
    ``complete``: a function applied to the model description first; ``replace``: {entry: file or bytes} to
    add or overwrite; ``drop``: prefixes of entries to leave out."""
    with zipfile.ZipFile(fmu_path) as zin:
        entries = {item.filename: zin.read(item.filename) for item in zin.infolist()
                   if not item.is_dir() and not item.filename.startswith(tuple(drop))}
    for name, content in (replace or {}).items():
        entries[name] = content if isinstance(content, bytes) else Path(content).read_bytes()
    xml_text = entries.pop("modelDescription.xml")
    if complete is not None:
        xml_text = complete(xml_text)
    entries.pop(TOKEN_ENTRY, None)  # a copy of the token, not content: the token must not depend on itself
    entries["modelDescription.xml"] = _identify_model_description(xml_text, entries)
    root = ET.fromstring(entries["modelDescription.xml"])
    if "instantiationToken" in root.attrib and f"resources/{_record_name()}" in entries:
        entries[TOKEN_ENTRY] = root.get("instantiationToken").encode()
    tmp_path = fmu_path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp_path, "w") as zout:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=ZIP_EPOCH)
            info.external_attr = (0o755 if name.startswith("binaries/") else 0o644) << 16
            info.create_system = 3  # Unix, whatever the build machine
            info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, entries[name], compresslevel=9)
    tmp_path.replace(fmu_path)
