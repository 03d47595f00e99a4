package paimon

func (t *Table) decodeManifestList(b []byte) ([]ManifestFileMeta, error) {
	return DecodeManifestList(b)
}

func (t *Table) decodeManifest(b []byte) ([]ManifestEntry, error) {
	return DecodeManifestEntries(b)
}

func (t *Table) decodeIndexManifest(b []byte) ([]IndexManifestEntry, error) {
	return DecodeIndexManifest(b)
}
