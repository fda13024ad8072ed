// An element's data as the server sent it (ui/component_data.py): a one-element list [payload], or one binary
// message (a figure's, a live chart's): the JSON's length (4 bytes, little-endian), the JSON, zeros up to a multiple
// of 8, then the typed arrays' bytes; each array's spec holds "at": [offset, length] into them instead of base64.
// A live chart's or the sidebar's rerun may send only what changes (`kept`: the rest is what the element holds).

const ALIGN = 8;

/** The payload of `data` (component.data). A packed array's spec gets `raw`: a copy of its bytes, so a typed array
 * can be made over them from offset 0. */
export function unpack(data) {
  if (Array.isArray(data)) return data[0];
  if (!(data instanceof Uint8Array)) return data;
  const length = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true);
  const text = new TextDecoder().decode(data.subarray(4, 4 + length));
  const start = Math.ceil((4 + length) / ALIGN) * ALIGN;
  return JSON.parse(text, (key, value) => {
    if (value && typeof value === "object" && Array.isArray(value.at) && typeof value.dtype === "string") {
      const [offset, size] = value.at;
      return { ...value, raw: data.slice(start + offset, start + offset + size) };
    }
    return value;
  });
}

/** The bytes of a typed-array spec: its unpacked `raw`, or its base64 `bdata` (Plotly's form), as an ArrayBuffer. */
export function arrayBytes(array) {
  if (array.raw) return array.raw.buffer;
  return Uint8Array.from(atob(array.bdata), (c) => c.charCodeAt(0)).buffer;
}

/** The first `count` values of a float32 typed-array spec, widened to float64 (a vector sent once at its largest
 * size, of which a view reads the leading block). */
export function leadingFloat32(array, count) {
  return Float64Array.from(new Float32Array(arrayBytes(array)).subarray(0, count));
}

/** The whole data of an element the server may send in part (ui/component_data.py kept_parts): data sent whole
 * (with `data_id`) is kept in `holder`; data sent in part (`kept`: the print of the part it leaves out) is merged
 * over what the holder kept. null when the holder does not have that part (a new element): it is asked for with
 * the trigger `missing`, and the rerun that follows sends it all. `prepare(data)` readies data sent whole once
 * (e.g. decodes its arrays) before it is kept. */
export function whole(holder, data, send, prepare = (whole) => whole) {
  if (data.kept === undefined) {
    holder.whole = prepare(data);
    holder.id = data.data_id;
    return holder.whole;
  }
  if (holder.id !== data.kept || !holder.whole) {
    send("missing", Date.now());
    return null;
  }
  return { ...holder.whole, ...data };
}
