#include "server-preset.h"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{
std::string
Bps(double bitsPerSecond)
{
    return std::to_string(std::llround(bitsPerSecond)) + "bps";
}

/** \p x as text that reads back as the same double. */
std::string
Exact(double x)
{
    std::ostringstream os;
    os << std::setprecision(17) << x;
    return os.str();
}
} // namespace

const std::vector<ServerPreset>&
ServerPreset::All()
{
    static const std::vector<ServerPreset> presets{
        {"hgx_h100",
         "HGX/DGX H100: 8 H100 SXM, NVLink 4 over 4 NVSwitch chips, 8 x 400G ConnectX-7",
         8,
         4,
         18,
         20.6,
         400,
         3.35,
         989,
         794.5,
         1402.6,
         "NVIDIA H100 datasheet (HBM3 3.35 TB/s, BF16 989 TFLOP/s dense, 18 NVLinks, 900 GB/s "
         "both ways); DGX H100 user guide (4 NVSwitch, 8 ConnectX-7 at 400 Gb/s); NCCL 2.30 "
         "src/graph/topo.h SM90_NVLINK_BW 20.6 GB/s per link; S. Bekman, Machine Learning "
         "Engineering, compute/accelerator, Maximum Achievable Matmul FLOPS table (H100 SXM: "
         "BF16 794.5, FP8 1402.6 TFLOP/s)"},
        {"hgx_h200",
         "HGX/DGX H200: 8 H200 SXM (H100's die and NVLink 4, HBM3e), 8 x 400G ConnectX-7",
         8,
         4,
         18,
         20.6,
         400,
         4.8,
         989,
         794.5,
         1453.4,
         "NVIDIA H200 datasheet (HBM3e 4.8 TB/s, the H100's BF16 989 TFLOP/s dense and 900 GB/s "
         "NVLink); DGX H200 user guide (4 NVSwitch, 8 ConnectX-7 at 400 Gb/s); NCCL 2.30 "
         "SM90_NVLINK_BW 20.6 GB/s per link; Maximum Achievable Matmul FLOPS table (H200 SXM: "
         "BF16 as the H100's, FP8 1453.4 TFLOP/s)"},
        {"hgx_h800",
         "HGX H800: 8 H800 (the H100's die, 8 of its 18 NVLinks: 400 GB/s both ways), 8 x 400G "
         "ConnectX-7; DeepSeek-V3's servers",
         8,
         4,
         8,
         20.6,
         400,
         3.35,
         989,
         794.5,
         1402.6,
         "DeepSeek-V3 technical report (arXiv 2412.19437) section 3.2.2 (NVLink 160 GB/s per GPU, "
         "InfiniBand 50 GB/s) and \"Insights into DeepSeek-V3\" (arXiv 2505.09343) (H800 "
         "NVLink 400 GB/s both ways, 8 x 400G InfiniBand NICs per node); the H100 SXM's HBM3 "
         "and compute (same GH100 die); NCCL 2.30 SM90_NVLINK_BW 20.6 GB/s per link; the HGX "
         "H100 baseboard's 4 NVSwitch chips (assumed); the H100 SXM's measured matmul rates "
         "(assumed: no H800 measurement)"},
        {"hgx_b200",
         "HGX/DGX B200: 8 B200, NVLink 5 over 2 NVSwitch chips, 8 x 400G ConnectX-7",
         8,
         2,
         18,
         40.1,
         400,
         8.0,
         2250,
         1745.0,
         3432.5,
         "NVIDIA HGX B200 specifications (HBM3e 8 TB/s, BF16 2.25 PFLOP/s dense at 1,000 W, 18 "
         "NVLink 5 links, 1.8 TB/s both ways); DGX B200 user guide (2 NVLink 5 switches, 8 "
         "ConnectX-7 at up to 400 Gb/s); NCCL 2.30 SM100_NVLINK_BW 40.1 GB/s per link; Maximum "
         "Achievable Matmul FLOPS table (B200 SXM: BF16 1745.0, FP8 3432.5 TFLOP/s)"},
    };
    return presets;
}

std::string
ServerPreset::Names()
{
    std::string names;
    for (const ServerPreset& p : All())
    {
        names += (names.empty() ? "\"" : ", \"") + p.name + "\"";
    }
    return names;
}

const ServerPreset&
ServerPreset::Get(const std::string& name)
{
    for (const ServerPreset& p : All())
    {
        if (p.name == name)
        {
            return p;
        }
    }
    throw std::invalid_argument("\"" + name + "\": no such server; allowed: " + Names());
}

ServerPreset::Values
ServerPreset::TopologyAttributes() const
{
    return {{"GpusPerServer", std::to_string(gpus)},
            {"NvlinkRate", Bps(nvLinks * nvLinkGBps * 8e9)},
            {"NicRate", std::to_string(nicGbps) + "Gbps"}};
}

ServerPreset::Values
ServerPreset::AcceleratorAttributes() const
{
    // Gb/s rounded, as the Accelerator's defaults are written (H100: 8933 and 13400 Gb/s).
    return {{"ReductionRate", std::to_string(std::lround(hbmTBps * 8000 / 3)) + "Gbps"},
            {"CopyRate", std::to_string(std::lround(hbmTBps * 8000 / 2)) + "Gbps"},
            {"SustainedFlops", std::to_string(std::llround(matmulBf16Tflops * 1e12))},
            {"LowPrecisionSpeedup", Exact(matmulFp8Tflops / matmulBf16Tflops)},
            {"PeakFlops", std::to_string(std::llround(peakBf16Tflops * 1e12))}};
}

} // namespace ns3
