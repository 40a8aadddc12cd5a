#ifndef AI_FABRIC_SERVER_PRESET_H
#define AI_FABRIC_SERVER_PRESET_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief A named DGX/HGX-class server: its GPUs, NVLink, NICs and accelerator, each figure
 * with its source, as attribute values for the helpers that build it.
 *
 * A preset is what a scenario's "server" key names (collbench's --server): its values take the
 * place of the attributes' defaults, and keys the scenario gives still win.  NVLink rates are
 * NCCL's per-link data rates (src/graph/topo.h) x 18 links; an accelerator reduces at a third
 * and copies at half of its HBM bandwidth (a reduction reads two operands and writes one, a copy
 * reads and writes); it sustains the matrix-product rates measured on it, BF16 and FP8
 * (Accelerator::SustainedFlops, LowPrecisionSpeedup).  The server's NVSwitch chips are one
 * switch in the model, of the GPUs' aggregate NVLink ports: a non-blocking crossbar either way;
 * their count is recorded.
 */
struct ServerPreset
{
    std::string name;        //!< the key's value, e.g. "hgx_h100"
    std::string description; //!< one line
    uint32_t gpus{8};        //!< GPUs per server
    uint32_t nvSwitches{0};  //!< NVSwitch chips on the baseboard
    uint32_t nvLinks{18};    //!< NVLinks per GPU
    double nvLinkGBps{0};    //!< data rate per link and direction, NCCL's figure
    uint32_t nicGbps{0};     //!< scale-out NIC per GPU
    double hbmTBps{0};       //!< HBM bandwidth per GPU
    double peakBf16Tflops{0}; //!< dense
    /** The measured maximum achievable dense BF16 matrix-product rate (Bekman's MAMF). */
    double matmulBf16Tflops{0};
    double matmulFp8Tflops{0}; //!< the same in FP8
    std::string sources;     //!< where each figure comes from

    /** Every preset, in the order of the docs. */
    static const std::vector<ServerPreset>& All();
    /** The preset called \p name; throws std::invalid_argument listing the names if none. */
    static const ServerPreset& Get(const std::string& name);
    /** The presets' names, quoted, comma separated (for messages and docs). */
    static std::string Names();

    /** Attribute values by attribute name, as text for the attributes' checkers. */
    using Values = std::vector<std::pair<std::string, std::string>>;
    /** TopologyHelper attributes: GpusPerServer, NvlinkRate, NicRate. */
    Values TopologyAttributes() const;
    /**
     * Accelerator attributes: ReductionRate, CopyRate, SustainedFlops, LowPrecisionSpeedup,
     * PeakFlops.
     */
    Values AcceleratorAttributes() const;
};

} // namespace ns3

#endif
