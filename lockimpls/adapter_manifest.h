// Adapter manifests: a third-party lock library becomes a variant without
// C++. A small JSON file beside the adapter program (docs/adapters.md,
// "Manifests") says what it is: its id, the library and version, how to
// start it, how to install what it needs, its source, and the bug it is
// known to carry. The bundled ones are every lockimpls/**/*.adapter.json
// (listed by `locksim list`, taken by --algorithm); `--adapter PATH` runs
// one that is not bundled (a manifest, or a bare program) under its own name.
#ifndef LOCKSIM_LOCKIMPLS_ADAPTER_MANIFEST_H_
#define LOCKSIM_LOCKIMPLS_ADAPTER_MANIFEST_H_

#include <memory>
#include <string>
#include <vector>

#include "lockimpls/lock.h"

namespace locksim {

// One adapter-driven variant: the strings its AlgorithmInfo points into.
// Not movable: `info` holds views of the members.
struct AdapterVariant {
  AdapterVariant() = default;
  AdapterVariant(const AdapterVariant&) = delete;
  AdapterVariant& operator=(const AdapterVariant&) = delete;

  std::string id, summary, source, bug;
  AdapterProgram program;
  AlgorithmInfo info;  // id, summary, ... and adapter = &program
};

// Reads the manifest at `path`. Throws InputError naming the file and the
// JSON path of what is wrong.
std::unique_ptr<AdapterVariant> LoadAdapterManifest(const std::string& path);

// `program` (an executable that speaks the adapter protocol) as a variant
// named after its file ("node_adapter.sh" -> "node_adapter"), with
// set-nx-px's default lease and wait. Throws InputError when it is missing.
std::unique_ptr<AdapterVariant> AdHocAdapter(const std::string& program);

// --adapter PATH: a manifest (*.json) or a bare program.
std::unique_ptr<AdapterVariant> AdapterFromPath(const std::string& path);

// The bundled manifests (every *.adapter.json under DataPath("lockimpls")),
// by id. Throws InputError for a bad one, or two with one id.
std::vector<std::unique_ptr<AdapterVariant>> LoadBundledAdapters();

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_ADAPTER_MANIFEST_H_
