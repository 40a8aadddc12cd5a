#include "scenario-distributed.h"

#include "ns3/fabric-partition.h"
#include "ns3/global-value.h"
#include "ns3/string.h"

#ifdef AI_FABRIC_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

#include "results-folder.h"

#include <fstream>
#include <limits>
#include <stdexcept>

using namespace ns3;

namespace aifabric
{

bool
MpiBuilt()
{
#ifdef AI_FABRIC_MPI
    return true;
#else
    return false;
#endif
}

#ifdef AI_FABRIC_MPI
Distribution
EnableMpi(int* argc, char*** argv, const std::string& ranksBy)
{
    // MPI started here rather than by MpiInterface::Enable(argc, argv), so that RestartMpi can
    // disable ns-3's interface between runs without finalizing MPI (MpiInterface::Disable
    // finalizes MPI only when ns-3 initialized it).
    MPI_Init(argc, argv);
    MpiInterface::Enable(MPI_COMM_WORLD);
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DistributedSimulatorImpl"));
    Distribution d;
    d.ranksBy = ranksBy;
    d.rank = MpiInterface::GetSystemId();
    d.ranks = MpiInterface::GetSize();
    return d;
}

void
RestartMpi()
{
    // DistributedSimulatorImpl::Destroy frees the interface's receive buffers (MpiInterface::
    // Destroy) but leaves it enabled; the next run's simulator needs them posted again.  The
    // receives posted on the old communicator stay pending (their buffers freed) and never
    // match, since no rank sends on it again: each restart leaks them and the communicator, as
    // ns-3 leaves its own receives pending at MPI_Finalize.  A few restarts a run.
    MpiInterface::Disable();
    MpiInterface::Enable(MPI_COMM_WORLD);
}

void
DisableMpi()
{
    if (MpiInterface::IsEnabled())
    {
        MpiInterface::Disable();
        MPI_Finalize();
    }
}

std::vector<std::string>
GatherAtRoot(const std::string& mine, const std::string& what)
{
    const MPI_Comm comm = MpiInterface::GetCommunicator();
    const int ranks = static_cast<int>(MpiInterface::GetSize());
    const int rank = static_cast<int>(MpiInterface::GetSystemId());
    // MPI counts and offsets are ints: every rank learns the total, so all stop alike.
    int64_t mySize = static_cast<int64_t>(mine.size());
    int64_t total = 0;
    MPI_Allreduce(&mySize, &total, 1, MPI_INT64_T, MPI_SUM, comm);
    if (total > std::numeric_limits<int>::max())
    {
        throw ResultsWriteError(what + ": the ranks' " + std::to_string(total) +
                                " bytes are more than one MPI gather takes (2 GiB)");
    }
    int size = static_cast<int>(mine.size());
    std::vector<int> sizes(ranks);
    MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm);
    std::vector<int> offsets(ranks, 0);
    for (int r = 1; r < ranks; ++r)
    {
        offsets[r] = offsets[r - 1] + sizes[r - 1];
    }
    std::string all(rank == 0 ? std::size_t(offsets.back() + sizes.back()) : 0, '\0');
    MPI_Gatherv(mine.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
                comm);
    std::vector<std::string> texts;
    for (int r = 0; rank == 0 && r < ranks; ++r)
    {
        texts.push_back(all.substr(offsets[r], sizes[r]));
    }
    return texts;
}

int64_t
MaxOverRanks(int64_t value)
{
    int64_t max = value;
    MPI_Allreduce(&value, &max, 1, MPI_INT64_T, MPI_MAX, MpiInterface::GetCommunicator());
    return max;
}
#else
Distribution
EnableMpi(int*, char***, const std::string&)
{
    throw std::logic_error("EnableMpi: built without ns-3's mpi module");
}

void
RestartMpi()
{
    throw std::logic_error("RestartMpi: built without ns-3's mpi module");
}

void
DisableMpi()
{
}

std::vector<std::string>
GatherAtRoot(const std::string& mine, const std::string&)
{
    return {mine};
}

int64_t
MaxOverRanks(int64_t value)
{
    return value;
}
#endif

std::vector<uint32_t>
PartitionScenario(const Scenario& s, const Distribution& d)
{
    try
    {
        if (d.ranksBy == "pod" || d.ranksBy == "rail")
        {
            return FabricPartition::ByGroup(s.topology, d.ranks);
        }
        if (d.ranksBy.rfind("map:", 0) == 0)
        {
            const std::string path = d.ranksBy.substr(4);
            std::ifstream in(path);
            if (!in)
            {
                throw ScenarioError("--ranks-by=" + d.ranksBy + ": cannot read " + path);
            }
            nlohmann::json map;
            try
            {
                in >> map;
            }
            catch (const nlohmann::json::exception& e)
            {
                throw ScenarioError("--ranks-by=" + d.ranksBy + ": not JSON: " + e.what());
            }
            if (!map.is_object())
            {
                throw ScenarioError("--ranks-by=" + d.ranksBy +
                                    ": expected a JSON object of node name: rank");
            }
            std::map<std::string, uint32_t> ranks;
            for (const auto& [name, rank] : map.items())
            {
                if (!rank.is_number_unsigned())
                {
                    throw ScenarioError("--ranks-by=" + d.ranksBy + ": node \"" + name +
                                        "\": rank " + rank.dump() +
                                        " is not a non-negative integer");
                }
                ranks[name] = rank.get<uint32_t>();
            }
            return FabricPartition::FromMap(s.topology, d.ranks, ranks);
        }
    }
    catch (const std::invalid_argument& e)
    {
        throw ScenarioError("--ranks-by=" + d.ranksBy + ": " + e.what());
    }
    throw ScenarioError("--ranks-by=" + d.ranksBy + ": unknown; allowed: pod, rail, map:FILE");
}

} // namespace aifabric
